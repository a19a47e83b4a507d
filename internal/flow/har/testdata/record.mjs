// Records testdata/login-browse.har: headless Chromium (the system's, via
// test/browser's playwright-core) opens a shop page served by a real
// loadlab origin (shop-recipe.json: a login route issuing tokens, pages
// requiring them, a paginated list, static assets), which logs in, browses
// with the bearer token, pages through a search and sends a beacon to a
// second origin (another host). Run from the repository's root:
//
//   go build -o /tmp/loadlab ./cmd/loadlab
//   (cd test/browser && npm ci)
//   LOADLAB_BIN=/tmp/loadlab node internal/flow/har/testdata/record.mjs
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../../../..");
const require = createRequire(join(root, "test/browser/package.json"));
const { chromium } = require("playwright-core");
const { start } = await import(join(root, "test/browser/lab.mjs"));

const bin = process.env.LOADLAB_BIN;
if (!bin) throw new Error("set LOADLAB_BIN to a loadlab binary");
const recipe = join(here, "shop-recipe.json");
const args = ["origin", "-recipe", recipe, "-listen", "127.0.0.1:0", "-seed", "1", "-quiet"];
const shop = await start(bin, args, /origin listening on (\S+)/);
const beacons = await start(bin, args, /origin listening on (\S+)/);
try {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium", headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
  });
  const context = await browser.newContext({ recordHar: { path: join(here, "login-browse.har"), content: "embed" } });
  const page = await context.newPage();
  await page.goto(`${shop.match[1]}/app?beacon=${encodeURIComponent(beacons.match[1] + "/collect")}`);
  await page.waitForFunction(() => document.title !== "shop", null, { timeout: 30_000 });
  const title = await page.title();
  await context.close();
  await browser.close();
  if (title !== "done") throw new Error(`the page says ${title}`);
  console.log("recorded", join(here, "login-browse.har"));
} finally {
  shop.proc.kill();
  beacons.proc.kill();
}
