// A flow run in the archive's site, in real headless Chromium (the
// system's /usr/bin/chromium): a real `loadlab run` of the example's
// log-in-and-browse journey against a real `loadlab origin` with token
// routes (8 sessions), added with `loadlab archive add` to a SQLite file
// and served by `loadlab archive serve`. Its run page shows the flow's
// sessions, the per-step table in the flow's order and the checks table.
//
// Run: cd test/browser && npm ci && node --test flow.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectProblems, here, launch, loadlab as binary, skip, start } from "./lab.mjs";

const loadlab = () => binary("flow");
const run = (args) => execFileSync(loadlab(), args, { stdio: ["ignore", "pipe", "inherit"], timeout: 120_000 }).toString();

test("loadlab archive serve: a flow run's page shows its steps and checks", { skip, timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "loadlab-flow-site-"));
  const shots = join(dir, "screenshots");
  mkdirSync(shots);
  const db = join(dir, "runs.db");
  const folder = join(dir, "run");
  let serve, browser;
  try {
    run(["run", "-quiet", "-out", folder, join(here, "testdata", "flow-plan.yaml")]);
    const id = run(["archive", "add", "-db", db, folder]).trim().split("\n").pop().trim();
    assert.match(id, /^[A-Za-z0-9_-]+$/, `archive add printed an ID: ${id}`);
    serve = await start(loadlab(), ["archive", "serve", "-db", db, "-listen", "127.0.0.1:0"], /archive site: (http:\/\/\S+)/);
    const base = serve.match[1].replace(/\/$/, "");
    browser = await launch();
    for (const [width, height, tag] of [[1280, 900, "desktop"], [390, 844, "phone"]]) {
      const problems = [];
      const page = await browser.newPage({ viewport: { width, height } });
      collectProblems(page, problems);
      const resp = await page.goto(`${base}/runs/${id}`, { waitUntil: "load" });
      assert.equal(resp.status(), 200);
      await page.screenshot({ path: join(shots, `flow-run-${tag}.png`), fullPage: true });
      const text = await page.evaluate(() => document.body.innerText);
      assert.match(text, /Flows/, "a Flows section");
      assert.match(text, /Sessions: 8 started, 8 completed, 0 failed, 0 dropped/, "the sessions line");
      // Every table of the page, as its header and rows of cell texts.
      const tables = await page.$$eval("table", (ts) => ts.map((t) => ({
        head: [...t.querySelectorAll("thead th")].map((th) => th.textContent.trim()),
        rows: [...t.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((td) => td.textContent.trim())),
      })));
      const steps = tables.find((t) => t.head.join("|") === "Step|Requests|Success|p50|p95|p99");
      assert.ok(steps, `a per-step table: ${JSON.stringify(tables.map((t) => t.head))}`);
      assert.deepEqual(steps.rows.map((r) => r.slice(0, 3)), [
        ["login", "8", "100.00%"], ["browse/home", "8", "100.00%"], ["browse/search", "8", "100.00%"], ["browse/item", "40", "100.00%"],
      ], "each step's requests and success, in the flow's order");
      for (const r of steps.rows) for (const c of r.slice(3)) assert.match(c, /^[\d.]+(µs|ms|s)$/, `a latency: ${r}`);
      const checks = tables.find((t) => t.head.join("|") === "Check|Passes|Fails|Passed");
      assert.ok(checks, "a checks table");
      assert.deepEqual(checks.rows, [
        ["✓ login: status 200", "8", "0", "100.00%"],
        ["✓ browse/home: json $.welcome equals true", "8", "0", "100.00%"],
        ["✓ browse/search: status 200", "8", "0", "100.00%"],
        ["✓ browse/item: body contains price", "40", "0", "100.00%"],
      ], "each check's passes and fails");
      assert.ok(await page.isVisible("text=browse/search"), "the step table is shown, not collapsed");
      assert.deepEqual(problems, [], `no console errors at ${tag}`);
      await page.close();
    }
    console.log(`screenshots: ${shots}`);
  } finally {
    if (browser) await browser.close();
    if (serve) serve.proc.kill();
    rmSync(folder, { recursive: true, force: true });
  }
});
