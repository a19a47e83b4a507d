// Watches `loadlab attack -ui` in real headless Chromium (the system's
// /usr/bin/chromium, never a downloaded browser): a short paced attack
// against a loopback server, the live page open on it; the values on the
// page change as the attack runs, its charts are drawn, a page opened late
// gets the history, and there are no console errors.
//
// Run: cd test/browser && npm ci && node --test
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
const flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run"];
const missing = !existsSync(chromium);
if (missing && process.env.CI) {
  throw new Error(`${chromium} is missing and CI is set: install it (apt-get install -y chromium)`);
}
const skip = missing ? `${chromium} not found: install it with apt-get install -y chromium` : false;
const out = join(here, "out");
mkdirSync(out, { recursive: true });

function loadlab() {
  const given = process.env.LOADLAB_BIN || process.env.LOADLAB;
  if (given) return given;
  const bin = join(out, "loadlab-live");
  execFileSync("go", ["build", "-o", bin, "./cmd/loadlab"], { cwd: root, stdio: "inherit" });
  return bin;
}

test("loadlab attack -ui shows the attack live in Chromium", { skip, timeout: 120_000 }, async () => {
  // A loopback target answering in ~5 ms.
  const target = createServer((req, res) => setTimeout(() => res.end("ok"), 5));
  await new Promise((r) => target.listen(0, "127.0.0.1", r));
  const port = target.address().port;
  // The attack, with its live view on a free loopback port it prints.
  const atk = spawn(loadlab(), ["attack", "-ui", "127.0.0.1:0", "-rate", "40/s", "-duration", "8s", "-output", join(out, "live.lll")],
    { stdio: ["pipe", "ignore", "pipe"] });
  atk.stdin.end(`GET http://127.0.0.1:${port}/x\n`);
  let stderr = "";
  const url = await new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error("no live view URL: " + stderr)), 15_000);
    atk.stderr.on("data", (d) => {
      stderr += d;
      const m = stderr.match(/live view: (http:\/\/\S+)/);
      if (m) { clearTimeout(t); res(m[1]); }
    });
  });
  const { chromium: pw } = await import("playwright-core");
  const browser = await pw.launch({ executablePath: chromium, headless: true, args: flags });
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems = [];
    page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    await page.goto(url, { waitUntil: "load" });
    const total = () => page.evaluate(() => Number(document.getElementById("k-total").textContent));
    await page.waitForFunction(() => Number(document.getElementById("k-total").textContent) > 0, null, { timeout: 15_000 });
    const first = await total();
    await page.waitForFunction((n) => Number(document.getElementById("k-total").textContent) > n, first, { timeout: 15_000 });
    const second = await total();
    assert.ok(second > first, `the request count grew: ${first} then ${second}`);
    const sent = await page.evaluate(() => Number(document.getElementById("k-sent").textContent));
    assert.ok(sent >= 30 && sent <= 50, `about 40 sent a second, got ${sent}`);
    // Charts are drawn: four uPlot canvases with ink on them.
    const inked = await page.evaluate(() => Array.from(document.querySelectorAll(".uplot canvas")).map((c) => {
      const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) n++;
      return n;
    }));
    assert.ok(inked.length >= 4 && inked.every((n) => n > 0), `charts drawn: ${inked}`);
    // A page opened later gets the history (a reconnect does the same).
    const late = await browser.newPage();
    late.on("pageerror", (e) => problems.push(`late page error: ${e.message}`));
    await late.goto(url, { waitUntil: "load" });
    await late.waitForFunction((n) => Number(document.getElementById("k-total").textContent) >= n, second, { timeout: 15_000 });
    // The run ends and the page says so.
    await page.waitForFunction(() => /ended/.test(document.getElementById("status").textContent), null, { timeout: 20_000 });
    const final = await total();
    assert.ok(final >= 300 && final <= 330, `the page counted the whole attack (320 requests): ${final}`);
    assert.deepEqual(problems, [], "no console errors");
  } finally {
    await browser.close();
    atk.kill();
    target.close();
  }
});
