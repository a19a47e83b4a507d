// What every browser test shares: the system's Chromium (never a
// downloaded browser) and how it is launched, whether the tests can run
// (they skip, saying why, only when Chromium is missing and CI is not
// set), the loadlab binary they drive, starting a long-lived loadlab
// command, and collecting a page's errors.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");

const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
const flags = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run",
];
const missing = !existsSync(chromium);
if (missing && process.env.CI) {
  throw new Error(`${chromium} is missing and CI is set: install it (apt-get install -y chromium)`);
}

// skip is the reason the tests cannot run (for node:test's skip), or false.
export const skip = missing ? `${chromium} not found: install it with apt-get install -y chromium (these tests never download a browser)` : false;

// out is the tests' scratch folder (gitignored: absent on a fresh clone).
export const out = join(here, "out");
mkdirSync(out, { recursive: true });

// launch starts headless Chromium through playwright-core.
export async function launch() {
  const { chromium: pw } = await import("playwright-core");
  return pw.launch({ executablePath: chromium, headless: true, args: flags });
}

const built = new Map();

// loadlab returns $LOADLAB_BIN (or $LOADLAB), or builds the binary once
// per name: each test file builds its own, as node --test runs the files
// at the same time and one must not replace the binary another runs.
export function loadlab(name) {
  const given = process.env.LOADLAB_BIN || process.env.LOADLAB;
  if (given) return given;
  if (!built.has(name)) {
    const bin = join(out, `loadlab-${name}`);
    execFileSync("go", ["build", "-o", bin, "./cmd/loadlab"], { cwd: root, stdio: "inherit" });
    built.set(name, bin);
  }
  return built.get(name);
}

// start runs a long-lived loadlab command (bin from loadlab) and resolves
// with the process and the first match of re in its output (stdout or
// stderr), within 30 s. stdin, when given, is written to its standard
// input, which is then closed.
export async function start(bin, args, re, stdin) {
  const proc = spawn(bin, args, { stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
  if (stdin !== undefined) proc.stdin.end(stdin);
  let text = "";
  const match = await new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error(`no ${re} from loadlab ${args.join(" ")}: ${text}`)), 30_000);
    const look = (d) => {
      text += d;
      const m = text.match(re);
      if (m) { clearTimeout(t); res(m); }
    };
    proc.stdout.on("data", look);
    proc.stderr.on("data", look);
    proc.on("exit", (code) => rej(new Error(`loadlab ${args.join(" ")} exited ${code}: ${text}`)));
  });
  return { proc, match };
}

// collectProblems adds the page's console errors and uncaught exceptions
// to problems as they happen.
export function collectProblems(page, problems) {
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
}

// inked counts the drawn pixels of every canvas matched by selector.
export function inked(page, selector) {
  return page.evaluate((sel) => Array.from(document.querySelectorAll(sel)).map((c) => {
    const px = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) n++;
    return n;
  }), selector);
}
