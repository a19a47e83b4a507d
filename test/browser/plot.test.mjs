// Opens loadlab's HTML pages in real headless Chromium (the system's
// /usr/bin/chromium, never a downloaded browser):
//   - the page `loadlab plot` writes for a vegeta results file: it loads with
//     no network and no console errors, every uPlot chart is drawn with its
//     legend, clicking a legend entry hides and shows the series, dragging
//     zooms and hovering fills the legend;
//   - the report.html `loadlab run` writes for a two-step plan against a
//     flaky origin: it loads with no network and no console errors and every
//     chart is drawn.
//
// Run: cd test/browser && npm ci && node --test
// It skips, saying why, only when Chromium is missing and CI is not set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { collectProblems, here, launch, loadlab as binary, out, skip } from "./lab.mjs";

const loadlab = () => binary("plot");

// makePage plots testdata/mixed.bin: 400 results of a vegeta attack with
// 200s, 503s, refused connections and timeouts.
function makePage() {
  const html = join(out, "plot.html");
  execFileSync(loadlab(), ["plot", "-title", "mixed.bin", "-output", html, join(here, "testdata", "mixed.bin")], { stdio: "inherit" });
  return html;
}

// open launches Chromium on a file with the network cut off, collecting
// console errors and attempted requests; fn gets the page.
async function open(file, fn) {
  const browser = await launch();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems = [];
    const requests = [];
    collectProblems(page, problems);
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith("file:")) return route.continue();
      requests.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
    await fn(page);
    assert.deepEqual(requests, [], "the page fetched nothing from the network");
    assert.deepEqual(problems, [], "no console errors");
  } finally {
    await browser.close();
  }
}

// drawn describes every uPlot chart of the page: title, legend labels,
// canvas size and how many of its pixels are not transparent.
function drawn(page) {
  return page.evaluate(() => Array.from(document.querySelectorAll(".uplot")).map((el) => {
    const c = el.querySelector("canvas");
    const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let inked = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) inked++;
    return {
      title: el.querySelector(".u-title")?.textContent,
      legend: Array.from(el.querySelectorAll(".u-legend .u-series .u-label")).map((l) => l.textContent),
      width: c.width, height: c.height, inked,
    };
  }));
}

test("loadlab plot page draws its charts in Chromium", { skip, timeout: 180_000 }, async () => {
  const html = makePage();
  await open(html, async (page) => {
    await page.waitForFunction(() => (window.LOADLAB_PLOTS || []).length === 4, null, { timeout: 20_000 });

    // Four charts, each with a legend and a canvas that has been drawn on.
    const charts = await drawn(page);
    assert.equal(charts.length, 4, "four charts");
    assert.deepEqual(charts.map((c) => c.title), ["mixed.bin", "Requests and throughput per second", "Status codes per second", "Latency by percentile"]);
    for (const c of charts) {
      assert.ok(c.width > 300 && c.height > 100, `${c.title}: canvas ${c.width}x${c.height}`);
      assert.ok(c.inked > 1000, `${c.title}: only ${c.inked} pixels drawn`);
      assert.ok(c.legend.length >= 2, `${c.title}: legend ${c.legend}`);
    }
    assert.deepEqual(charts[0].legend, ["time (s)", "2xx", "5xx", "error"]);

    // Clicking a legend entry hides its series; clicking again shows it.
    const entry = page.locator(".uplot").first().locator(".u-legend .u-series").nth(3); // "error"
    const shown = () => page.evaluate(() => window.LOADLAB_PLOTS[0].series[3].show);
    const ymax = () => page.evaluate(() => window.LOADLAB_PLOTS[0].scales.y.max);
    const before = await ymax();
    assert.equal(await shown(), true);
    await entry.click();
    assert.equal(await shown(), false, "series hidden after a click on its legend entry");
    assert.match(await entry.getAttribute("class"), /u-off/);
    // The 500ms timeouts are errors: without them the y axis rescales.
    const after = await ymax();
    assert.ok(before > 500 && after < 100, `y axis from ${before} to ${after} after hiding the errors`);
    await entry.click();
    assert.equal(await shown(), true, "series shown again after a second click");

    // Dragging across the plot zooms the x axis; double-click resets it.
    const over = page.locator(".uplot").first().locator(".u-over");
    const box = await over.boundingBox();
    const x0 = await page.evaluate(() => [window.LOADLAB_PLOTS[0].scales.x.min, window.LOADLAB_PLOTS[0].scales.x.max]);
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    const x1 = await page.evaluate(() => [window.LOADLAB_PLOTS[0].scales.x.min, window.LOADLAB_PLOTS[0].scales.x.max]);
    assert.ok(x1[1] - x1[0] < (x0[1] - x0[0]) / 2, `zoomed from ${x0} to ${x1}`);
    await page.mouse.dblclick(box.x + box.width * 0.5, box.y + box.height / 2);
    const x2 = await page.evaluate(() => [window.LOADLAB_PLOTS[0].scales.x.min, window.LOADLAB_PLOTS[0].scales.x.max]);
    assert.ok(x2[1] - x2[0] > 0.7 * (x0[1] - x0[0]), `double-click reset ${x1} to ${x2}`);

    // Hovering fills the legend with the values under the cursor.
    await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
    const values = await page.locator(".uplot").first().locator(".u-legend .u-series .u-value").allTextContents();
    assert.notEqual(values[0].trim(), "--", "hover shows the time under the cursor");
    assert.match(values[1], /^\d/, `hover shows the nearest 2xx latency, got ${values}`);

    await page.screenshot({ path: join(out, "plot.png"), fullPage: true });
  });
});

test("loadlab run's report.html draws every chart in Chromium", { skip, timeout: 240_000 }, async () => {
  const dir = join(out, "run");
  rmSync(dir, { recursive: true, force: true });
  // Two 2-second steps against a loopback origin whose /search turns to 503s.
  execFileSync(loadlab(), ["run", "-quiet", "-out", dir, join(here, "testdata", "plan.yaml")], { stdio: ["ignore", "ignore", "inherit"] });
  await open(join(dir, "report.html"), async (page) => {
    await page.waitForFunction(() => (window.LOADLAB_PLOTS || []).length > 0, null, { timeout: 20_000 });
    const slots = await page.evaluate(() => document.querySelectorAll("div.chart").length);
    const charts = await drawn(page);
    assert.ok(charts.length >= 6, `only ${charts.length} charts`);
    assert.equal(charts.length, slots, "every chart slot holds a drawn chart");
    for (const c of charts) {
      assert.ok(c.inked > 500, `${c.title}: only ${c.inked} pixels drawn`);
      assert.ok(c.legend.length >= 2, `${c.title}: legend ${c.legend}`);
    }
    const titles = charts.map((c) => c.title).join(" | ");
    assert.match(titles, /Latency over time/);
    assert.match(titles, /percentile/i);
    // The answer comes first: the comparison before the first step.
    const order = await page.evaluate(() => Array.from(document.querySelectorAll("h2")).map((h) => h.textContent));
    assert.equal(order[0], "Comparison", `sections: ${order}`);
    // The per-step detail is collapsed under the answer; opening a step
    // lays its charts out at the page's width.
    const steps = await page.evaluate(() => document.querySelectorAll("details.step").length);
    assert.ok(steps >= 2, `steps collapsed: ${steps}`);
    await page.evaluate(() => { document.querySelector("details.step").open = true; });
    await page.waitForFunction(() => {
      const c = document.querySelector("details.step[open] .uplot canvas");
      return c && c.getBoundingClientRect().width > 300;
    }, null, { timeout: 5_000 });
    // Printed to PDF, the report holds every step (they open for print).
    const pdf = await page.pdf({ path: join(out, "report.pdf"), format: "A4", printBackground: true });
    assert.ok(pdf.length > 50_000, `report.pdf is only ${pdf.length} bytes`);
    const pdfPages = (pdf.toString("latin1").match(/\/Type\s*\/Page[^s]/g) || []).length;
    assert.ok(pdfPages >= 3, `report.pdf has ${pdfPages} pages`);
    await page.screenshot({ path: join(out, "report.png"), fullPage: true });
    // On a phone (390 px wide) nothing sticks out sideways: wide tables
    // and charts scroll inside their own box.
    await page.setViewportSize({ width: 390, height: 844 });
    // The charts resize on the window's resize event: wait for the layout
    // to settle (or 5 s), then check.
    await page.waitForFunction(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth, null, { timeout: 5_000 }).catch(() => {});
    const widths = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(widths[0] <= widths[1], `page is ${widths[0]} px wide in a ${widths[1]} px viewport`);
    await page.screenshot({ path: join(out, "report-phone.png"), fullPage: false });
  });
});

test("loadlab plot of an empty results file shows empty charts without errors", { skip, timeout: 120_000 }, async () => {
  mkdirSync(out, { recursive: true });
  const empty = join(out, "empty.bin");
  writeFileSync(empty, "");
  const html = join(out, "empty.html");
  execFileSync(loadlab(), ["plot", "-output", html, empty], { stdio: "inherit" });
  await open(html, async (page) => {
    await page.waitForFunction(() => (window.LOADLAB_PLOTS || []).length === 4, null, { timeout: 20_000 });
    const charts = await drawn(page);
    assert.equal(charts.length, 4);
  });
});
