/**
 * Test fixture: Debian's Chromium driven by `npm:playwright-core` (docs/architecture.md, "Stack").
 *
 * Starting Chromium is the dearest part of a browser test (about a CPU second with its
 * processes), a fresh browser context with its renderer about half of one; a page loaded again
 * in the same renderer costs a fraction. So a test file starts one {@link Chromium} and opens a
 * context per viewport / touch kind from it ({@link Chromium.newPage}); steps that only change
 * the width or the colour scheme reuse that page and start over with {@link freshStart}.
 * {@link launchBrowser} is the one-context shorthand.
 *
 * The browser is Debian's Chromium in its headless shell (`chromium-headless-shell`, the same
 * Blink and V8 without the desktop browser's UI layer), the variant Playwright itself runs for
 * headless Chromium ("Browsers", playwright.dev/docs/browsers#chromium-headless-shell). Measured
 * over the eleven browser test files, it needs about half the CPU of the full `chromium` binary
 * in `--headless` mode (22 against 43 CPU seconds, docs/test-speed.md). Without it, the full
 * `/usr/bin/chromium` is used; `CHROMIUM_PATH` overrides both.
 *
 * Browser tests run when one of them exists. Without it they are skipped with a printed reason,
 * unless `REQUIRE_E2E=1` (set by `.ci/run`): then they run and fail, so CI cannot pass without
 * having run them.
 * @module
 */
import fs from "node:fs";
import type { Browser as PwBrowser, BrowserContext, Locator, Page } from "playwright-core";

/** Debian's headless shell (package `chromium-headless-shell`), the first choice. */
const HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell";
/** Debian's full Chromium (package `chromium`), used when the headless shell is missing. */
const FULL_CHROMIUM = "/usr/bin/chromium";

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** Chromium binary: `CHROMIUM_PATH`, else the headless shell when installed, else the full one. */
export const CHROMIUM_PATH = Deno.env.get("CHROMIUM_PATH") ??
  (isFile(HEADLESS_SHELL) ? HEADLESS_SHELL : FULL_CHROMIUM);
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
  if (isFile(CHROMIUM_PATH)) return null;
  return Deno.env.get("CHROMIUM_PATH")
    ? `CHROMIUM_PATH=${CHROMIUM_PATH} is not a file`
    : `${CHROMIUM_PATH} not found (apt-get install -y chromium-headless-shell)`;
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

/** A page in a context of its own. */
export interface Browser extends AsyncDisposable {
  context: BrowserContext;
  page: Page;
  /** Closes the context (and, from {@link launchBrowser}, the browser with its profile). */
  close(): Promise<void>;
}

/** Options of a browser context: CSS pixels; `hasTouch` makes `tap()` and coarse pointers work. */
export interface PageOptions {
  viewport?: { width: number; height: number };
  hasTouch?: boolean;
  colorScheme?: "light" | "dark";
  /** The browser's language (`navigator.language`), e.g. `de-DE`; default Playwright's. */
  locale?: string;
}

/** One running Chromium that hands out isolated contexts (own storage, own cookies). */
/** The desktop every console browser test looks at: 1440 px, `en-GB`, light. */
export const DESKTOP: Readonly<PageOptions> = Object.freeze({
  viewport: { width: 1440, height: 900 },
  locale: "en-GB",
});

/** The phone every console browser test looks at: 390 px, touch, `de-DE`, dark. */
export const PHONE: Readonly<PageOptions> = Object.freeze({
  viewport: { width: 390, height: 844 },
  hasTouch: true,
  locale: "de-DE",
  colorScheme: "dark",
});

export interface Chromium extends AsyncDisposable {
  /** A new context with one page; default viewport 1440 × 1000, no touch. */
  newPage(opts?: PageOptions): Promise<Browser>;
  /** Closes every context and the browser; playwright removes its temp profile. */
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

/**
 * Launches Chromium (headless, on a temp profile that playwright removes when it closes).
 * @throws when Chromium is missing
 */
export async function launchChromium(): Promise<Chromium> {
  const missing = chromiumMissing();
  if (missing) throw new Error(`browser tests required (REQUIRE_E2E=1) but ${missing}`);
  nodeCompatibleExistsSync();
  const { chromium } = await import("playwright-core");
  const browser: PwBrowser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  const close = () => browser.close();
  return {
    async newPage(opts = {}) {
      const context = await browser.newContext({
        viewport: opts.viewport ?? { width: 1440, height: 1000 },
        hasTouch: opts.hasTouch ?? false,
        colorScheme: opts.colorScheme ?? "light",
        ...(opts.locale ? { locale: opts.locale } : {}),
      });
      const page = await context.newPage();
      const closeContext = () => context.close();
      return { context, page, close: closeContext, [Symbol.asyncDispose]: closeContext };
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Launches Chromium with one context and page; `close()` stops the browser. */
export async function launchBrowser(opts: PageOptions = {}): Promise<Browser> {
  const chromium = await launchChromium();
  try {
    const b = await chromium.newPage(opts);
    return { ...b, close: chromium.close, [Symbol.asyncDispose]: chromium.close };
  } catch (e) {
    await chromium.close();
    throw e;
  }
}

/**
 * Starts `page` over as a fresh context would: clears the storage of the origin of `url` (the
 * console keeps its key in `localStorage`) and the cookies, then loads `url`.
 */
export async function freshStart(page: Page, url: string): Promise<void> {
  await page.context().clearCookies();
  if (new URL(page.url(), "about:blank").origin === new URL(url).origin) {
    await page.evaluate(() => {
      localStorage.clear();
      sessionStorage.clear();
    });
  }
  await page.goto(url);
}

/**
 * Opens the console of the service at `base` and enters the process key `key`, the page's clock
 * fixed at `nowMs` (the service's fake clock) when given.
 */
export async function openConsole(
  page: Page,
  base: string,
  key: string,
  nowMs?: number,
): Promise<void> {
  if (nowMs !== undefined) await page.clock.setFixedTime(new Date(nowMs));
  await page.goto(`${base}/console`);
  await page.waitForSelector("html[data-ready=true]");
  await page.fill("#process-key", key);
  await page.press("#process-key", "Enter");
}

/**
 * A finger held on `target` at `from` (a fraction of its width, at half its height) and moved
 * sideways to `to`: the DevTools protocol's touch events, as a phone makes them, 50 ms apart (by
 * their timestamps) and held still at the end (a finger lifted in motion flings, and the next tap
 * only stops the fling). Needs a context with `hasTouch`.
 */
export async function touchDrag(page: Page, target: Locator, from: number, to: number) {
  const box = (await target.boundingBox())!;
  const y = box.y + box.height / 2;
  const cdp = await page.context().newCDPSession(page);
  const at = (f: number) => [{ x: box.x + box.width * f, y }];
  const t0 = Date.now() / 1000;
  await cdp.send("Input.dispatchTouchEvent", {
    type: "touchStart",
    touchPoints: at(from),
    timestamp: t0,
  });
  for (let k = 1; k <= 6; k++) {
    await cdp.send("Input.dispatchTouchEvent", {
      type: "touchMove",
      touchPoints: at(from + ((to - from) * k) / 6),
      timestamp: t0 + 0.05 * k,
    });
  }
  await cdp.send("Input.dispatchTouchEvent", {
    type: "touchMove",
    touchPoints: at(to),
    timestamp: t0 + 0.6,
  });
  await cdp.send("Input.dispatchTouchEvent", {
    type: "touchEnd",
    touchPoints: [],
    timestamp: t0 + 0.65,
  });
  await cdp.detach();
}

const SHOTS = new URL("../e2e/screenshots/", import.meta.url);

/**
 * Whether the browser tests save their screenshots (evidence for people, never asserted on):
 * only with `E2E_SCREENSHOTS=1` (`deno task screenshots` sets it). Each costs Chromium about 0.1
 * CPU second to paint and encode, together some 12 CPU seconds (6 s of the suite's wall time on
 * two cores), so `deno task test` leaves them out.
 */
export const SCREENSHOTS = Deno.env.get("E2E_SCREENSHOTS") === "1";

/** Saves a full-page screenshot `tests/e2e/screenshots/<name>.png` (git-ignored). */
export async function shot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  await Deno.mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage: true });
}

/**
 * Saves a screenshot of one element (scrolled into view) or of a page's viewport (or `clip`, CSS
 * pixels) as `tests/e2e/screenshots/<name>.png`.
 */
export async function shotOf(
  target: Page | Locator,
  name: string,
  opts: { clip?: { x: number; y: number; width: number; height: number } } = {},
): Promise<void> {
  if (!SCREENSHOTS) return;
  await Deno.mkdir(SHOTS, { recursive: true });
  const path = new URL(`${name}.png`, SHOTS).pathname;
  if ("goto" in target) await target.screenshot({ path, clip: opts.clip });
  else await target.screenshot({ path });
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
