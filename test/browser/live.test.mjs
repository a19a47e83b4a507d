// Watches loadlab's live view in real headless Chromium (the system's
// /usr/bin/chromium, never a downloaded browser), with no console errors:
//   - `loadlab attack -ui`: a short paced attack against a loopback server;
//     the values on the page change as the attack runs, the time left counts
//     down, its charts are drawn, a page opened late gets the history, and
//     the page says when the attack has ended;
//   - `loadlab run -ui`: a two-step plan against the origin simulator; the
//     page names each step in turn and draws the sampled server metrics
//     (CPU, memory) on charts of their own.
//
// Run: cd test/browser && npm ci && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { createServer } from "node:http";
import { connect, createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { collectProblems, here, inked, launch, loadlab, out, skip, start } from "./lab.mjs";

// startUI runs loadlab with args (stdin text given) and resolves with the
// process and the live view URL it prints on stderr.
async function startUI(args, stdin) {
  const { proc, match } = await start(loadlab("live"), args, /live view: (http:\/\/\S+)/, stdin);
  return { proc, url: match[1] };
}

// startRelay forwards a loopback port to the live view's, so the test can
// cut the browser's connections (cut) as a network drop would.
async function startRelay(port) {
  const open = new Set();
  let n = 0;
  const server = createNetServer((c) => {
    n++;
    const up = connect(Number(port), "127.0.0.1");
    open.add(c); open.add(up);
    for (const s of [c, up]) {
      s.on("close", () => open.delete(s));
      s.on("error", () => {});
    }
    c.pipe(up); up.pipe(c);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: server.address().port,
    connections: () => n,
    cut: () => { for (const s of open) s.destroy(); },
    close: () => { server.close(); for (const s of open) s.destroy(); },
  };
}

// watch opens url in a fresh page collecting console and page errors.
async function watch(browser, url, problems) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  collectProblems(page, problems);
  await page.goto(url, { waitUntil: "load" });
  return page;
}

test("loadlab attack -ui shows the attack live in Chromium", { skip, timeout: 120_000 }, async () => {
  // A loopback target answering in ~5 ms.
  const target = createServer((req, res) => setTimeout(() => res.end("ok"), 5));
  await new Promise((r) => target.listen(0, "127.0.0.1", r));
  const port = target.address().port;
  const browser = await launch();
  let atk, relay;
  try {
    // The attack, with its live view on a free loopback port it prints.
    const ui = await startUI(["attack", "-ui", "127.0.0.1:0", "-rate", "40/s", "-duration", "8s", "-output", join(out, "live.lll")],
      `GET http://127.0.0.1:${port}/x\n`);
    atk = ui.proc;
    const url = ui.url;
    relay = await startRelay(new URL(url).port);
    const problems = [];
    const page = await watch(browser, `http://127.0.0.1:${relay.port}/`, problems);
    const total = () => page.evaluate(() => Number(document.getElementById("k-total").textContent));
    await page.waitForFunction(() => Number(document.getElementById("k-total").textContent) > 0, null, { timeout: 15_000 });
    const first = await total();
    await page.waitForFunction((n) => Number(document.getElementById("k-total").textContent) > n, first, { timeout: 15_000 });
    const second = await total();
    assert.ok(second > first, `the request count grew: ${first} then ${second}`);
    const sent = await page.evaluate(() => Number(document.getElementById("k-sent").textContent));
    assert.ok(sent >= 30 && sent <= 50, `about 40 sent a second, got ${sent}`);
    // The time left counts down from the 8 s of -duration.
    const left = () => page.evaluate(() => document.getElementById("k-left").textContent);
    const l1 = await left();
    assert.match(l1, /^0:0[0-8]$/, "time left of an 8 s attack");
    await page.waitForFunction((l) => document.getElementById("k-left").textContent !== l, l1, { timeout: 15_000 });
    assert.ok(await left() < l1, `time left went down from ${l1}`);
    assert.match(await page.evaluate(() => document.getElementById("step").textContent), /^attack at 40\/s/);
    // Charts are drawn: four uPlot canvases with ink on them.
    const ink = await inked(page, ".uplot canvas");
    assert.ok(ink.length >= 4 && ink.every((n) => n > 0), `charts drawn: ${ink}`);
    // The connection drops (the relay in between cuts it): the page says
    // it is reconnecting, reconnects by itself and resumes after its last
    // point (Last-Event-ID), so the final count below has no point twice
    // and none missing.
    const before = problems.length;
    relay.cut();
    await page.waitForFunction(() => /reconnecting/.test(document.getElementById("status").textContent), null, { timeout: 15_000 });
    await page.waitForFunction(() => /^live/.test(document.getElementById("status").textContent), null, { timeout: 15_000 });
    // Chromium logs the cut itself as a failed load; nothing else may appear.
    const cutLog = problems.splice(before);
    assert.ok(cutLog.every((m) => /net::ERR_/.test(m)), `only the cut is logged: ${cutLog}`);
    assert.ok(relay.connections() >= 2, `the page reconnected (${relay.connections()} connections)`);
    // A page opened later gets the history.
    const late = await watch(browser, url, problems);
    await late.waitForFunction((n) => Number(document.getElementById("k-total").textContent) >= n, second, { timeout: 15_000 });
    // The run ends and the page says so.
    await page.waitForFunction(() => /ended/.test(document.getElementById("status").textContent), null, { timeout: 20_000 });
    const final = await total();
    assert.equal(final, 320, "the page counted every request of the attack (40/s for 8 s)");
    // The header now shows the whole run's figures, not its last second's.
    assert.match(await page.evaluate(() => document.getElementById("status").textContent), /whole run/);
    assert.equal(await page.evaluate(() => document.getElementById("k-success").textContent), "100.00%");
    assert.deepEqual(problems, [], "no console errors");
  } finally {
    await browser.close();
    atk?.kill();
    relay?.close();
    target.close();
  }
});

test("loadlab run -ui shows each step and the sampled server metrics in Chromium", { skip, timeout: 180_000 }, async () => {
  const browser = await launch();
  const dir = join(out, "live-run");
  rmSync(dir, { recursive: true, force: true });
  let run;
  try {
    const ui = await startUI(["run", "-quiet", "-out", dir, "-ui", "127.0.0.1:0", join(here, "testdata", "live-plan.yaml")], "");
    run = ui.proc;
    const problems = [];
    const page = await watch(browser, ui.url, problems);
    await page.waitForFunction(() => /^step 1\/2: 20 rps at search 20\/s/.test(document.getElementById("step").textContent), null, { timeout: 30_000 });
    // The origin's and the generator's CPU and memory, a chart per unit.
    const titles = () => page.evaluate(() => Array.from(document.querySelectorAll("#c-metrics .u-title")).map((e) => e.textContent));
    await page.waitForFunction(() => {
      const t = Array.from(document.querySelectorAll("#c-metrics .u-title")).map((e) => e.textContent);
      return !document.getElementById("s-metrics").hidden && t.includes("sampled: CPU %") && t.includes("sampled: MiB");
    }, null, { timeout: 30_000 }).catch(async (e) => { throw new Error(`metric charts: ${await titles()}: ${e.message}`); });
    const legend = await page.evaluate(() => document.querySelector("#c-metrics").textContent);
    assert.match(legend, /origin/, "the origin's series are on the metric charts");
    await page.waitForFunction(() => /^step 2\/2: 40 rps at search 40\/s/.test(document.getElementById("step").textContent), null, { timeout: 30_000 });
    assert.match(await page.evaluate(() => document.getElementById("k-left").textContent), /^0:0[0-4]$|^-$/, `time left in a 4 s step`);
    await page.waitForFunction(() => /ended/.test(document.getElementById("status").textContent), null, { timeout: 60_000 });
    const ink = await inked(page, ".uplot canvas");
    assert.ok(ink.length >= 6 && ink.every((n) => n > 0), `charts drawn: ${ink}`);
    const total = await page.evaluate(() => Number(document.getElementById("k-total").textContent));
    assert.equal(total, 240, "the page counted every request of both steps (20/s and 40/s for 4 s)");
    assert.deepEqual(problems, [], "no console errors");
  } finally {
    await browser.close();
    run?.kill();
  }
});
