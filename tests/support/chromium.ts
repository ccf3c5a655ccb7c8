/**
 * Test fixture: Debian's Chromium driven by `npm:playwright-core` (docs/architecture.md, "Stack"), one persistent
 * context on a fresh temp profile per launch.
 *
 * Browser tests run when `/usr/bin/chromium` (or `CHROMIUM_PATH`) exists. Without it they are
 * skipped with a printed reason, unless `REQUIRE_E2E=1` (set by `.ci/run`): then they run and
 * fail, so CI cannot pass without having run them.
 * @module
 */
import fs from "node:fs";
import type { BrowserContext, Page } from "playwright-core";

/** Chromium binary. */
export const CHROMIUM_PATH = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";
/** True when the browser tests must run (CI). */
export const REQUIRE_E2E = Deno.env.get("REQUIRE_E2E") === "1";

/** Flags for a quiet, sandbox-free headless run in a container. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

function chromiumMissing(): string | null {
  try {
    return Deno.statSync(CHROMIUM_PATH).isFile ? null : `${CHROMIUM_PATH} is not a file`;
  } catch {
    return `${CHROMIUM_PATH} not found (apt-get install -y chromium)`;
  }
}

/**
 * Whether to register browser tests as ignored. Prints the reason when skipping; with
 * `REQUIRE_E2E=1` never skips (the launch then fails the test).
 */
export function skipBrowserTests(suite: string): boolean {
  const missing = chromiumMissing();
  if (!missing || REQUIRE_E2E) return false;
  console.log(`SKIP ${suite}: ${missing}; set REQUIRE_E2E=1 to make this a failure.`);
  return true;
}

/** A launched browser. */
export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Closes the browser and removes its profile directory. */
  close(): Promise<void>;
}

/**
 * Node's `fs.existsSync` answers `false` on any error; Deno's throws `NotCapable` for paths it
 * only opens with `--allow-all` (playwright-core probes `/proc/sys/fs/binfmt_misc/WSLInterop`
 * when it loads). Restore Node's contract so the browser tests run with the test task's
 * granular permissions.
 */
function nodeCompatibleExistsSync(): void {
  const original = fs.existsSync;
  if ((original as { nodeCompatible?: boolean }).nodeCompatible) return;
  const patched = (path: fs.PathLike) => {
    try {
      return original(path);
    } catch {
      return false;
    }
  };
  (patched as { nodeCompatible?: boolean }).nodeCompatible = true;
  fs.existsSync = patched;
}

/** Launches Chromium on a fresh temp profile. @throws when Chromium is missing */
export async function launchBrowser(
  opts: { viewport?: { width: number; height: number }; hasTouch?: boolean } = {},
): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing) throw new Error(`browser tests required (REQUIRE_E2E=1) but ${missing}`);
  nodeCompatibleExistsSync();
  const { chromium } = await import("playwright-core");
  const dir = await Deno.makeTempDir({ prefix: "console-e2e-profile-" });
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: opts.viewport ?? { width: 1440, height: 1000 },
    hasTouch: opts.hasTouch ?? false,
  });
  const page = context.pages()[0] ?? await context.newPage();
  return {
    context,
    page,
    async close() {
      await context.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

const SHOTS = new URL("../e2e/screenshots/", import.meta.url);

/** Saves a full-page screenshot `tests/e2e/screenshots/<name>.png` (git-ignored). */
export async function shot(page: Page, name: string): Promise<void> {
  await Deno.mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage: true });
}

/** Problems a page reported: CSP violations, console errors, uncaught exceptions. */
export interface PageProblems {
  csp: string[];
  console: string[];
  exceptions: string[];
}

/**
 * Records CSP violations (`securitypolicyviolation`, reported through a CDP binding that the
 * CSP does not govern), console errors and uncaught exceptions of `page`.
 */
export async function watchProblems(page: Page): Promise<PageProblems> {
  const found: PageProblems = { csp: [], console: [], exceptions: [] };
  await page.exposeFunction("__reportCsp", (v: string) => found.csp.push(v));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      const report = (globalThis as unknown as { __reportCsp(v: string): void }).__reportCsp;
      report(
        `${e.violatedDirective} blocked ${
          e.blockedURI || "inline"
        } (${e.sourceFile}:${e.lineNumber})`,
      );
    });
  });
  page.on("console", (m) => {
    if (m.type() === "error") found.console.push(m.text());
  });
  page.on("pageerror", (err) => found.exceptions.push(String(err)));
  return found;
}
