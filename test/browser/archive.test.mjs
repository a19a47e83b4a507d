// Browses `loadlab archive serve` in real headless Chromium (the system's
// /usr/bin/chromium, never a downloaded browser). The archive is real:
// three short `loadlab attack`s against a real `loadlab origin` on
// loopback, labelled build=01..03, and a two-step `loadlab run` folder with
// sampled server metrics, each added with `loadlab archive add` to a
// SQLite file. At desktop (1280 px) and phone (390 px) widths, the index,
// a run, compare and trend pages load with no console errors, draw their
// charts (canvases with ink), have working links, and nothing overflows
// the phone's width. Screenshots go to a temporary folder (printed).
//
// Run: cd test/browser && npm ci && node --test
// It skips, saying why, only when Chromium is missing and CI is not set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collectProblems, here, inked, launch, loadlab as binary, skip, start as startLoadlab } from "./lab.mjs";

const loadlab = () => binary("archive");

function run(args, input) {
  return execFileSync(loadlab(), args, { input: input ?? "", stdio: ["pipe", "pipe", "inherit"], timeout: 120_000 }).toString();
}

// start runs a long-lived loadlab command and resolves with the process
// and the first match of re in its output (stdout or stderr).
const start = (args, re) => startLoadlab(loadlab(), args, re);

// lastLine is the last non-empty line: archive add prints the new run's ID last.
const lastLine = (s) => s.trim().split("\n").pop().trim();

// overflow is how far the page is wider than the window (0: it fits).
const overflow = (page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test("loadlab archive serve: index, run, compare and trend pages in Chromium", { skip, timeout: 300_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "loadlab-archive-site-"));
  const shots = join(dir, "screenshots");
  mkdirSync(shots);
  const db = join(dir, "runs.db");
  let origin, serve, browser;
  try {
    origin = (await start(["origin", "-recipe", join(here, "testdata", "recipe.json"), "-listen", "127.0.0.1:0"], /origin listening on (http:\/\/\S+)/));
    const originURL = origin.match[1];
    const ids = [];
    for (const build of ["01", "02", "03"]) {
      const file = join(dir, `build-${build}.lll`);
      run(["attack", "-rate", "50/s", "-duration", "2s", "-output", file], `GET ${originURL}/news\n`);
      ids.push(lastLine(run(["archive", "add", "-db", db, "-name", "news", "-label", `build=${build}`, "-label", "team=search", file])));
    }
    const folder = join(dir, "run-folder");
    run(["run", "-quiet", "-out", folder, join(here, "testdata", "live-plan.yaml")]);
    const folderID = lastLine(run(["archive", "add", "-db", db, "-label", "build=04", folder]));
    for (const id of [...ids, folderID]) assert.match(id, /^[A-Za-z0-9_-]+$/, `archive add printed an ID: ${id}`);

    serve = await start(["archive", "serve", "-db", db, "-listen", "127.0.0.1:0"], /archive site: (http:\/\/\S+)/);
    const base = serve.match[1].replace(/\/$/, "");
    browser = await launch();

    for (const [width, height, tag] of [[1280, 900, "desktop"], [390, 844, "phone"]]) {
      const problems = [];
      const page = await browser.newPage({ viewport: { width, height } });
      collectProblems(page, problems);
      const visit = async (path, name) => {
        let resp = await page.goto(base + path, { waitUntil: "load" });
        // A trend's change points are computed in the background; until
        // they are, the page says so and reloads by itself.
        for (let i = 0; i < 120 && /reloads by itself/.test(await page.evaluate(() => document.body.innerText)); i++) {
          await page.waitForTimeout(1000);
          resp = await page.goto(base + path, { waitUntil: "load" });
        }
        assert.equal(resp.status(), 200, `${path} at ${tag}`);
        await page.screenshot({ path: join(shots, `${name}-${tag}.png`), fullPage: true });
        assert.ok(await overflow(page) <= 1, `${path} fits ${width} px: overflow ${await overflow(page)} px`);
      };

      // Index: every run, newest first, with links that work.
      await visit("/", "index");
      const rows = await page.$$eval("table.runs tbody tr", (trs) => trs.length);
      assert.equal(rows, 4, "four runs listed");
      const firstID = await page.$eval("table.runs tbody tr td:nth-child(2) code", (e) => e.textContent);
      assert.equal(firstID, folderID, "newest first: the run folder was added last and started last");
      // Filter by label (a label link), then sort by name.
      await page.click(`table.runs a.label:text("build=02")`);
      await page.waitForLoadState("load");
      assert.equal(await page.$$eval("table.runs tbody tr", (trs) => trs.length), 1, "the label filter keeps one run");
      await page.goto(base + "/?sort=name&order=asc", { waitUntil: "load" });
      // the name's link (a noisy run's cell also holds its "noisy" mark)
      const names = await page.$$eval("table.runs tbody tr td:nth-child(4) > a", (as) => as.map((a) => a.textContent));
      assert.deepEqual(names, [...names].sort(), `sorted by name: ${names}`);
      await page.goto(base + "/", { waitUntil: "load" });
      await Promise.all([page.waitForURL(/\/runs\//), page.click(`table.runs a[href="/runs/${folderID}"] >> nth=0`)]);

      // The run folder's page: the answer first, each step's text report
      // beside its percentile plot, the sampled server metrics.
      await visit(`/runs/${folderID}`, "run");
      const text = await page.evaluate(() => document.body.innerText);
      assert.match(text, /Requests\s+\[total, rate, throughput\]/, "the vegeta-style text report");
      assert.match(text, /machine health: .*lag p99 /, "what the machine did to the run");
      assert.match(text, /Thresholds|Comparison/, "the run folder's comparison from its summary");
      const titles = await page.$$eval(".u-title", (ts) => ts.map((t) => t.textContent));
      assert.ok(titles.some((t) => /Latency by percentile/.test(t)), `a percentile plot: ${titles}`);
      assert.ok(titles.some((t) => /CPU usage|Memory/.test(t)), `the sampled server metrics: ${titles}`);
      const ink = await inked(page, ".uplot canvas");
      assert.ok(ink.length >= 4 && ink.every((n) => n > 0), `every chart drawn: ${ink}`);
      // The tar download link answers.
      const tar = await page.request.get(base + `/runs/${folderID}/archive.tar`);
      assert.equal(tar.status(), 200);
      assert.ok((await tar.body()).length > 1024, "the tar holds the run's files");

      // A plain results run's page, reached from the index by its ID.
      await visit(`/runs/${ids[0]}`, "run-results");
      assert.ok((await inked(page, ".uplot canvas")).every((n) => n > 0), "its percentile plot is drawn");

      // Compare: the three builds side by side with compare's verdicts.
      await visit(`/compare?ids=${ids.join(",")}`, "compare");
      const cmp = await page.evaluate(() => document.body.innerText);
      assert.match(cmp, /no significant difference|slower|faster/, "compare's verdicts");
      assert.match(cmp, /95% CI/, "confidence intervals");
      const cink = await inked(page, ".uplot canvas");
      assert.ok(cink.length >= 1 && cink.every((n) => n > 0), `the overlay is drawn: ${cink}`);
      await Promise.all([page.waitForURL(/\/runs\//), page.click(`a[href="/runs/${ids[1]}"] >> nth=0`)]);

      // Trend: p99 by build, each point a link to its run.
      await visit("/trend?by=build&metric=p99", "trend");
      const tink = await inked(page, "#trend canvas");
      assert.ok(tink.length >= 1 && tink.every((n) => n > 0), `the trend chart is drawn: ${tink}`);
      const labels = await page.$$eval("table.points tbody tr td:nth-child(2)", (tds) => tds.map((t) => t.textContent));
      assert.deepEqual(labels, ["01", "02", "03", "04"], "ordered by build");
      // Click the second dot: its run opens.
      const box = await page.evaluate(() => {
        const u = window.LOADLAB_PLOTS[window.LOADLAB_PLOTS.length - 1];
        const r = u.over.getBoundingClientRect();
        return { x: r.left + u.valToPos(1, "x"), y: r.top + u.valToPos(window.LOADLAB_TREND.values[1], "y") };
      });
      await page.mouse.move(box.x, box.y);
      await Promise.all([page.waitForURL(new RegExp(`/runs/${ids[1]}$`)), page.mouse.click(box.x, box.y)]);

      assert.deepEqual(problems, [], `no console errors at ${tag}`);
      await page.close();
    }
    console.log(`screenshots: ${shots}`);
  } finally {
    await browser?.close();
    serve?.proc.kill();
    origin?.proc.kill();
    if (!process.env.KEEP_SHOTS) rmSync(join(dir, "run-folder"), { recursive: true, force: true });
  }
});
