// A closed-loop run's pages in real headless Chromium (the system's
// /usr/bin/chromium, never a downloaded browser): a real `loadlab run` of
// 4 and 32 users (each sending its next request when its answer came)
// through the playground proxy in front of a real `loadlab origin` on
// loopback. Its report.html and its page on `loadlab archive serve` show
// each step's users and the throughput they got where a paced run shows
// its rate (the figures of the run's summary.json), and draw the knee
// charts against the users, with no console errors and no network. The
// plan run again makes a second run: the site's index shows both runs'
// load as `loadlab archive list` does ("4-32 users"), and its compare
// page leads with their throughput, step against step by users, with the
// figures `loadlab compare` prints for the two run folders.
//
// Run: cd test/browser && npm ci && node --test
// It skips, saying why, only when Chromium is missing and CI is not set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { collectProblems, here, inked, launch, loadlab as binary, skip, start } from "./lab.mjs";

const loadlab = () => binary("closed");

// loadCells are the comparison table's rows on the page: configuration
// and load cells.
const loadCells = (page) => page.$$eval("table", (tables) => {
  const t = tables.find((t) => Array.from(t.querySelectorAll("th")).some((th) => th.textContent.startsWith("Load")));
  if (!t) return null;
  const head = Array.from(t.querySelectorAll("th")).map((th) => th.textContent);
  return { head, rows: Array.from(t.querySelectorAll("tbody tr")).map((tr) => Array.from(tr.querySelectorAll("td")).slice(0, 2).map((td) => td.textContent)) };
});

// checkPage checks the comparison and the knee chart against users on
// the page open in page, against the run's summary.json.
async function checkPage(page, sum, where) {
  const table = await loadCells(page);
  assert.ok(table, `${where}: no comparison table with a load column`);
  assert.equal(table.head[1], "Load (rate, or users and throughput)", where);
  assert.equal(table.rows.length, sum.steps.length, `${where}: a row per step`);
  sum.steps.forEach((st, i) => {
    const sc = st.scenarios[0];
    const [conf, load] = table.rows[i];
    assert.equal(conf, st.name, where);
    const m = load.match(/^(\d+) users, ([\d.,]+) req\/s$/);
    assert.ok(m, `${where}: load cell ${JSON.stringify(load)}`);
    assert.equal(Number(m[1]), sc.users, `${where}: users of ${st.name}`);
    // Rounded as the report rounds (a tenth below 100/s, whole above).
    assert.ok(Math.abs(Number(m[2].replace(/,/g, "")) - sc.throughput) <= 0.5, `${where}: ${load} against the throughput ${sc.throughput}`);
  });
  const text = await page.evaluate(() => document.body.innerText);
  assert.doesNotMatch(text, /beyond the loads tried/, `${where}: a finding about rates`);
  assert.match(text, /page('s throughput| kept at least 99% success and its throughput) [^\n]*users[^\n]*Little's law/, `${where}: the finding in users`);
  const charts = await page.$$eval(".uplot", (els) => els.map((el) => ({
    title: el.querySelector(".u-title")?.textContent,
    legend: Array.from(el.querySelectorAll(".u-legend .u-series .u-label")).map((l) => l.textContent),
  })));
  const knee = charts.find((c) => /^Throughput of page against its users/.test(c.title));
  assert.ok(knee, `${where}: no throughput knee chart: ${charts.map((c) => c.title)}`);
  assert.equal(knee.legend[0], "users", `${where}: the knee chart's x axis`);
  assert.ok(knee.legend.some((l) => /measured/.test(l)), `${where}: ${knee.legend}`);
  const ink = await inked(page, ".uplot canvas");
  assert.ok(ink.length >= 2 && ink.every((n) => n > 0), `${where}: every chart drawn: ${ink}`);
}

// throughputRows are compare's throughput rows (figures, interval,
// verdict) by group, from loadlab compare's text.
function throughputRows(text) {
  const rows = {};
  let group = "";
  for (const line of text.split("\n")) {
    const g = line.match(/^== (.*) ==$/);
    if (g) group = g[1];
    const c = line.trim().split(/\s{2,}/);
    if (c.length === 7 && c[1] === "throughput") rows[group] = c.slice(2);
  }
  return rows;
}

test("a closed loop's report.html and archive pages speak in users", { skip, timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "loadlab-closed-"));
  const folder = join(dir, "run"), again = join(dir, "again");
  for (const f of [folder, again]) {
    execFileSync(loadlab(), ["run", "-quiet", "-out", f, join(here, "testdata", "closed-plan.yaml")], { stdio: ["ignore", "ignore", "inherit"], timeout: 120_000 });
  }
  const sum = JSON.parse(readFileSync(join(folder, "summary.json"), "utf8"));
  assert.deepEqual(sum.steps.map((st) => st.scenarios[0].users), [4, 32], "summary.json keeps each step's users");

  const db = join(dir, "runs.db");
  const add = (f) => execFileSync(loadlab(), ["archive", "add", "-db", db, f], { stdio: ["ignore", "pipe", "inherit"] }).toString().trim().split("\n").pop().trim();
  const id = add(folder), againID = add(again);
  const listed = execFileSync(loadlab(), ["archive", "list", "-db", db]).toString().trim().split("\n").map((l) => l.split(/\s{2,}/));
  assert.equal(listed[0][5], "LOAD", "archive list's LOAD column");
  const loads = Object.fromEntries(listed.slice(1).map((c) => [c[0], c[5]]));
  assert.deepEqual(loads, { [id]: "4-32 users", [againID]: "4-32 users" }, "archive list's loads");
  const cli = throughputRows(execFileSync(loadlab(), ["compare", folder, again], { stdio: ["ignore", "pipe", "ignore"] }).toString());
  assert.deepEqual(Object.keys(cli).sort(), ["page, 32 users", "page, 4 users"], "loadlab compare matches the runs' steps by users");
  let serve, browser;
  try {
    serve = await start(loadlab(), ["archive", "serve", "-db", db, "-listen", "127.0.0.1:0"], /archive site: (http:\/\/\S+)/);
    const base = serve.match[1].replace(/\/$/, "");
    browser = await launch();
    const problems = [];
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    collectProblems(page, problems);

    // report.html, offline.
    const fetched = [];
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith("file:") || url.startsWith(base)) return route.continue();
      fetched.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(join(folder, "report.html")).href, { waitUntil: "load" });
    await page.waitForFunction(() => (window.LOADLAB_PLOTS || []).length > 0, null, { timeout: 20_000 });
    await checkPage(page, sum, "report.html");

    // The run's page on the archive's site.
    const resp = await page.goto(`${base}/runs/${id}`, { waitUntil: "load" });
    assert.equal(resp.status(), 200);
    await checkPage(page, sum, "the archive's run page");

    // The index: the load column, what archive list shows, explained.
    await page.goto(`${base}/`, { waitUntil: "load" });
    const head = await page.$$eval("table.runs thead th", (ths) => ths.map((th) => [th.textContent, th.title]));
    const at = head.findIndex(([t]) => /^load/.test(t));
    assert.ok(at > 0 && /closed loop's users/.test(head[at][1]), `the load column and what it means: ${JSON.stringify(head)}`);
    const cells = await page.$$eval("table.runs tbody tr", (trs, at) => trs.map((tr) => [tr.querySelector("code").textContent, tr.children[at].textContent]), at);
    assert.deepEqual(Object.fromEntries(cells), loads, "the index's load cells are archive list's");
    assert.match(await page.evaluate(() => document.body.innerText), /Load is what a run was asked to send/, "the page says what load means");

    // Compare: load and throughput first, then per number of users
    // compare's table, led by the throughput row loadlab compare prints.
    await page.goto(`${base}/compare?ids=${id},${againID}`, { waitUntil: "load" });
    const side = await page.$$eval("table", (ts) => Array.from(ts[0].querySelectorAll("tbody tr")).map((tr) => tr.children[0].textContent));
    assert.deepEqual(side.slice(3, 5), ["load", "throughput"], `the side by side leads with load and throughput: ${side}`);
    const stats = await page.$$eval("section", (secs) => secs.map((s) => ({
      title: s.querySelector("h2")?.textContent ?? "",
      first: Array.from(s.querySelector("tbody tr")?.children ?? []).map((td) => td.textContent),
    })).filter((s) => s.title.startsWith("Statistics: ")));
    assert.deepEqual(stats.map((s) => s.title).sort(), ["Statistics: page, 32 users", "Statistics: page, 4 users"], "steps compared by users");
    for (const s of stats) {
      assert.equal(s.first[1], "throughput", `${s.title}: throughput first`);
      // The figures are loadlab compare's; the verdict too, but for steps
      // shorter than four of the archive's 2 s time blocks: the site judges
      // the blocks the archive kept and says "too short" where the command,
      // cutting a short file finer, may say "cannot tell" (neither judges).
      const want = cli[s.title.replace("Statistics: ", "")];
      const got = s.first.slice(2);
      assert.deepEqual(got.slice(0, 3), want.slice(0, 3), `${s.title}: loadlab compare's figures`);
      if (got[4] === "too short") assert.ok(["cannot tell", "too short"].includes(want[4]), `${s.title}: the command judged what the site calls too short: ${want}`);
      else assert.deepEqual(got, want, `${s.title}: loadlab compare's verdict`);
    }
    const cink = await inked(page, ".uplot canvas");
    assert.ok(cink.length >= 2 && cink.every((n) => n > 0), `the overlays are drawn: ${cink}`);
    assert.deepEqual(fetched, [], "the pages fetched nothing from the network");
    assert.deepEqual(problems, [], "no console errors");
  } finally {
    await browser?.close();
    serve?.proc.kill();
  }
});
