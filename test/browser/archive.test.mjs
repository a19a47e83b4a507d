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
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// pausedAttack runs a real attack and stops its process for 400 ms once
// it is under way (SIGSTOP, SIGCONT): a machine pause as a busy CI
// runner makes one, which the archive keeps as the run's health (noisy).
async function pausedAttack(args, input, file) {
  const proc = spawn(loadlab(), args, { stdio: ["pipe", "ignore", "inherit"] });
  const exited = new Promise((res, rej) => proc.on("exit", (code) => (code === 0 ? res() : rej(new Error(`attack exited ${code}`)))));
  proc.stdin.end(input);
  for (let i = 0; i < 600 && !(existsSync(file) && statSync(file).size > 0); i++) await sleep(50);
  await sleep(1000);
  process.kill(proc.pid, "SIGSTOP");
  await sleep(400);
  process.kill(proc.pid, "SIGCONT");
  await exited;
}

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
    // Three builds of 8 s (four time blocks each, enough to judge); the
    // third's attack is paused: a noisy run.
    for (const build of ["01", "02", "03"]) {
      const file = join(dir, `build-${build}.lll`);
      const args = ["attack", "-rate", "50/s", "-duration", "8s", "-output", file];
      if (build === "03") await pausedAttack(args, `GET ${originURL}/news\n`, file);
      else run(args, `GET ${originURL}/news\n`);
      ids.push(lastLine(run(["archive", "add", "-db", db, "-name", "news", "-label", `build=${build}`, "-label", "team=search", file])));
    }
    // Build 02 accepted as the baseline (archive accept): the trend chart marks it.
    assert.match(run(["archive", "accept", "-db", db, "-note", "faster news on purpose", ids[1]]), /accepted run/);
    const folder = join(dir, "run-folder");
    run(["run", "-quiet", "-out", folder, join(here, "testdata", "live-plan.yaml")]);
    const folderID = lastLine(run(["archive", "add", "-db", db, "-label", "build=04", folder]));
    for (const id of [...ids, folderID]) assert.match(id, /^[A-Za-z0-9_-]+$/, `archive add printed an ID: ${id}`);

    serve = await start(["archive", "serve", "-db", db, "-listen", "127.0.0.1:0"], /archive site: (http:\/\/\S+)/);
    const base = serve.match[1].replace(/\/$/, "");
    browser = await launch();

    let noisyIDs = new Set();
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
      // The noisy mark: on the paused build's row only, saying why.
      const marks = await page.$$eval("table.runs tbody tr", (trs) => trs.map((tr) => {
        const m = tr.querySelector("span.noisy");
        return [tr.querySelector("td:nth-child(2) code").textContent, m ? m.getAttribute("title") : ""];
      }));
      // (On a busy machine the other runs may be noisy too: the marks
      // are checked against each other below, the paused run's always.)
      noisyIDs = new Set(marks.filter(([, why]) => why).map(([id]) => id));
      assert.ok(noisyIDs.has(ids[2]), `the paused run is marked noisy: ${JSON.stringify(marks)}`);
      const why = marks.find(([id]) => id === ids[2])[1];
      assert.match(why, /^noisy: its own schedule lag p99 \(([\d.]+)(ms|s)\) is \d+% of its latency p99$/, "the mark says why");
      const [, lag, unit] = why.match(/p99 \(([\d.]+)(ms|s)\)/);
      assert.ok(Number(lag) * (unit === "s" ? 1000 : 1) >= 200, `the paused run's lag p99 holds the 400 ms pause: ${why}`);
      assert.ok(await page.isVisible(`table.runs tr:has(code:text("${ids[2]}")) span.noisy`), "the mark is shown");
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
      if (!noisyIDs.has(ids[0])) assert.doesNotMatch(await page.evaluate(() => document.body.innerText), /noisy/, "a quiet run is not called noisy");
      // The paused run's page: its machine-health line names the pause.
      await visit(`/runs/${ids[2]}`, "run-noisy");
      assert.match(await page.evaluate(() => document.body.innerText), /machine health: .*lag p99 [\d.]+m?s \(\d+% of p99\)[^;\n]*; noisy: its own schedule lag p99/, "the noisy run's machine-health line");

      // Compare: the three builds side by side with compare's verdicts.
      await visit(`/compare?ids=${ids.join(",")}`, "compare");
      const cmp = await page.evaluate(() => document.body.innerText);
      assert.match(cmp, /no difference|cannot tell|slower|faster/, "compare's run-level verdicts");
      assert.match(cmp, /99% CI/, "confidence intervals");
      // The noisy note: the paused build ran on a busy machine, and no
      // verdict rests on it.
      const notes = await page.$$eval("p.noisy-note", (ps) => ps.map((p) => p.textContent));
      assert.ok(notes.some((n) => /build=03 ran on a busy machine: its own schedule lag p99/.test(n)), `the note names the paused run: ${notes}`);
      for (const [i, b] of ["01", "02", "03"].entries()) {
        assert.equal(notes.some((n) => n.includes(`build=${b} ran on a busy machine`)), noisyIDs.has(ids[i]), `build ${b}: a note when, and only when, the index marks it noisy: ${notes}`);
      }
      assert.ok(notes.some((n) => /no verdict rests on a run made on a busy machine/.test(n)), `the note says what it means: ${notes}`);
      assert.ok(await page.isVisible("p.noisy-note"), "the note is shown");
      const statRows = await page.$$eval("table tbody tr", (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
      const noisyRows = statRows.filter((c) => c.length === 7 && c[0].includes("build=03"));
      assert.ok(noisyRows.length >= 5, `the noisy build's statistics: ${JSON.stringify(statRows)}`);
      for (const c of noisyRows) assert.doesNotMatch(c[6], /slower|faster|worse|better/, `no verdict rests on the noisy build: ${c}`);
      const cink = await inked(page, ".uplot canvas");
      assert.ok(cink.length >= 1 && cink.every((n) => n > 0), `the overlay is drawn: ${cink}`);
      await Promise.all([page.waitForURL(/\/runs\//), page.click(`a[href="/runs/${ids[1]}"] >> nth=0`)]);

      // Trend: p99 by build, each point a link to its run.
      await visit("/trend?by=build&metric=p99", "trend");
      const tink = await inked(page, "#trend canvas");
      assert.ok(tink.length >= 1 && tink.every((n) => n > 0), `the trend chart is drawn: ${tink}`);
      const labels = await page.$$eval("table.points tbody tr td:nth-child(2)", (tds) => tds.map((t) => t.textContent));
      assert.deepEqual(labels, ["01", "02 (accepted)", "03", "04"], "ordered by build, the accepted one said so");
      // The chart's marks: an orange ring around the noisy run's dot, a
      // green line at the accepted run, read from the canvas's pixels.
      const chart = await page.evaluate(() => {
        const u = window.LOADLAB_PLOTS[window.LOADLAB_PLOTS.length - 1];
        const d = window.LOADLAB_TREND;
        const dpr = window.devicePixelRatio || 1;
        const near = (x, y, rgb) => {
          for (let dx = -3; dx <= 3; dx++) for (let dy = -3; dy <= 3; dy++) {
            const p = u.ctx.getImageData(Math.round(x + dx), Math.round(y + dy), 1, 1).data;
            if (p[3] > 0 && Math.abs(p[0] - rgb[0]) < 40 && Math.abs(p[1] - rgb[1]) < 40 && Math.abs(p[2] - rgb[2]) < 40) return true;
          }
          return false;
        };
        const ring = (i) => near(u.valToPos(i, "x", true), u.valToPos(d.values[i], "y", true) - 8 * dpr, [160, 90, 0]);
        const line = (i) => near(u.valToPos(i, "x", true), u.bbox.top + u.bbox.height * 0.05, [44, 160, 44]);
        return { noisy: d.noisy, accepted: d.accepted, rings: d.values.map((_, i) => ring(i)), lines: d.values.map((_, i) => line(i)) };
      });
      // The trend's noisy points are the index's noisy runs, and any run
      // whose lag was a large share of the p99 its peers typically
      // measured (a run stalled as a whole inflates its own p99 with the
      // same delays; the index, which has no peers, cannot tell): the
      // trend's JSON says which and why.
      const api = await (await page.request.get(base + "/api/trend?by=build&metric=p99")).json();
      const trendWhy = new Map(api.points.map((p) => [p.id, p.noisy || ""]));
      for (const id of noisyIDs) assert.ok(trendWhy.get(id), `the index's noisy run ${id} is a noisy point: ${JSON.stringify(api.points)}`);
      for (const [id, why] of trendWhy) {
        if (why && !noisyIDs.has(id)) assert.match(why, /of the latency p99 its peers typically measured/, `a point noisy only against its peers says so: ${why}`);
      }
      const wantNoisy = [...ids, folderID].map((id) => !!trendWhy.get(id));
      assert.equal(chart.noisy[2], true, `the paused build is a noisy point: ${JSON.stringify(chart)}`);
      assert.deepEqual(chart.noisy, wantNoisy, `the noisy points are the trend's noisy runs: ${JSON.stringify(chart)}`);
      assert.deepEqual(chart.rings, wantNoisy, `an orange ring around each noisy point, and only there: ${JSON.stringify(chart)}`);
      assert.deepEqual(chart.accepted, [1], `build 02 is the accepted run: ${JSON.stringify(chart)}`);
      assert.deepEqual(chart.lines, [false, true, false, false], `a green line at the accepted run only: ${JSON.stringify(chart)}`);
      const tnoisy = await page.$$eval("table.points tbody tr", (trs) => trs.map((tr) => !!tr.querySelector("span.noisy")));
      assert.deepEqual(tnoisy, wantNoisy, "the points table marks the noisy runs");
      const accepted = await page.evaluate(() => document.body.innerText);
      assert.match(accepted, new RegExp(`run ${ids[1]} accepted .*: faster news on purpose`), "the accepted run is listed with its note");
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
