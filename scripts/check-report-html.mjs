// Checks the HTML readiness report in a real headless browser (Debian's chromium, driven by
// playwright-core; Playwright's own browser download is not used):
//
//   node scripts/check-report-html.mjs PAGE.html SCOPE... [--screenshot OUT.png]
//
// The page must load from file:// without a console error (a blocked inline style or script
// is one: the CSP names their hashes), without any request but the page itself, run its
// script (the filters appear), show every SCOPE in the timeline matrix and in a section of its
// own, and hide the blockers when the "blockers" filter is unticked.
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(process.env.KPL_NODE_MODULES ? path.join(process.env.KPL_NODE_MODULES, "x.js") : import.meta.url);
const { chromium } = require("playwright-core");

const args = process.argv.slice(2);
let shot = "";
const i = args.indexOf("--screenshot");
if (i >= 0) {
  shot = args[i + 1];
  args.splice(i, 2);
}
const [page, ...scopes] = args;
if (!page || scopes.length === 0) {
  console.error("usage: check-report-html.mjs PAGE.html SCOPE... [--screenshot OUT.png]");
  process.exit(2);
}
const url = "file://" + path.resolve(page);
const browser = await chromium.launch({
  executablePath: process.env.KPL_CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const failures = [];
try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const p = await ctx.newPage();
  p.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") failures.push(`console ${m.type()}: ${m.text()}`);
  });
  p.on("pageerror", (e) => failures.push(`page error: ${e.message}`));
  p.on("request", (r) => {
    if (r.url() !== url) failures.push(`request to ${r.url()}`);
  });
  await p.goto(url, { waitUntil: "load" });
  if (!(await p.isVisible("#filters"))) failures.push("the filters did not appear: the page's script did not run");
  for (const s of scopes) {
    const inMatrix = await p.locator("table.matrix th", { hasText: s }).count();
    const section = await p.locator("section.scope h2", { hasText: s }).count();
    if (inMatrix !== 1 || section !== 1) failures.push(`scope ${s}: ${inMatrix} matrix rows, ${section} sections; want 1 and 1`);
  }
  const blockers = p.locator("li.sev-error");
  const n = await blockers.count();
  if (n === 0) failures.push("no blocker on the page");
  else {
    await p.uncheck('#filters input[value="sev-error"]');
    if (await blockers.first().isVisible()) failures.push("unticking blockers does not hide them");
    await p.check('#filters input[value="sev-error"]');
    if (!(await blockers.first().isVisible())) failures.push("ticking blockers does not show them again");
  }
  if (shot) await p.screenshot({ path: shot, fullPage: false });
} finally {
  await browser.close();
}
if (failures.length > 0) {
  for (const f of failures) console.error("  " + f);
  process.exit(1);
}
console.log(`${page}: loads without errors or requests; ${scopes.length} scopes shown; filters work`);
