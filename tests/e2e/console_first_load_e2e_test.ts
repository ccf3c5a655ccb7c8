/**
 * The console's first load (docs/console.md, "First load"): each API resource is fetched once,
 * the button set comes from the status answer (no OpenAPI document), and the answers travel
 * compressed. Prints the request count and the bytes on the wire (encoded bodies plus headers)
 * of a first load with the key stored, so before/after figures can be compared (the live stream
 * stays open, so it is not among the finished requests).
 *
 * Skipped with a printed reason when Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import type { Page, Request } from "playwright-core";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { call, startServer } from "../support/app.ts";
import { launchBrowser, skipBrowserTests } from "../support/chromium.ts";
import { PROC as KEY } from "../support/keys.ts";

/** One finished request of the load. */
interface Seen {
  method: string;
  path: string;
  status: number;
  encoding: string;
  bytes: number;
}

/** Loads `/console` with the key stored and records every request until the page is settled. */
async function firstLoad(page: Page, url: string): Promise<Seen[]> {
  const seen: Seen[] = [];
  const pending: Promise<void>[] = [];
  const onFinished = (req: Request) => {
    pending.push((async () => {
      const res = await req.response();
      const sizes = await req.sizes();
      const u = new URL(req.url());
      seen.push({
        method: req.method(),
        path: u.pathname + (u.search ? "?" + u.searchParams.toString() : ""),
        status: res?.status() ?? 0,
        encoding: (await res?.allHeaders())?.["content-encoding"] ?? "",
        bytes: sizes.responseBodySize + sizes.responseHeadersSize,
      });
    })());
  };
  page.on("requestfinished", onFinished);
  await page.goto(`${url}/console`);
  await page.waitForSelector("html[data-ready=true]");
  await page.locator(".conn-live").waitFor({ timeout: 10_000 });
  await page.locator(".pill[data-state]").first().waitFor();
  // Late reloads (an event batch's debounce is 800 ms); the live stream never goes idle.
  await page.waitForTimeout(2_500);
  page.off("requestfinished", onFinished);
  await Promise.all(pending);
  return seen;
}

Deno.test({
  name: "console e2e: first load fetches each API resource once, no OpenAPI document, compressed",
  ignore: skipBrowserTests("console first-load e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await ensureBundle();
  const s = await startServer({ PROCESS_API_KEYS: `ops:${KEY}`, RATE_LIMIT_PER_MINUTE: "0" });
  const b = await launchBrowser();
  const page = b.page;
  try {
    const headers = { "x-api-key": KEY, "content-type": "application/json" };
    // Some history: config changes, orchestrator events, a manual pass.
    await call(`${s.url}/v1/console/config`, {
      method: "PUT",
      headers,
      body: JSON.stringify({ sftp_port: 2222 }),
    });
    await call(`${s.url}/v1/console/start`, { method: "POST", headers });
    await call(`${s.url}/v1/console/stop`, { method: "POST", headers });
    await call(`${s.url}/v1/orchestrate`, { method: "POST", headers });
    // A cold first load (empty cache) with the key already stored in the browser.
    await page.addInitScript((k) => localStorage.setItem("scheduling-bridge.process-key", k), KEY);

    const seen = await firstLoad(page, s.url);
    const api = seen.filter((r) => r.path.startsWith("/v1/"));
    const total = seen.reduce((n, r) => n + r.bytes, 0);
    const apiBytes = api.reduce((n, r) => n + r.bytes, 0);
    console.log(
      `first load: ${seen.length} requests, ${total} bytes on the wire; ` +
        `API: ${api.length} requests, ${apiBytes} bytes`,
    );
    for (const r of seen) {
      console.log(`  ${r.method} ${r.path} ${r.status} ${r.encoding || "identity"} ${r.bytes} B`);
    }
    const keyOf = (r: Seen) => `${r.method} ${r.path.replace(/token=[^&]+/, "token=…")}`;
    const counts = new Map<string, number>();
    for (const r of api) counts.set(keyOf(r), (counts.get(keyOf(r)) ?? 0) + 1);
    const twice = [...counts].filter(([, n]) => n > 1);
    assert.deepEqual(twice, [], "an API resource fetched more than once");
    assert.ok(!api.some((r) => r.path === "/v1/openapi.json"), "the OpenAPI document was fetched");
    for (const r of seen) {
      if (r.path.startsWith("/v1/console/events/stream")) continue;
      if (r.bytes > 2_000 && !r.path.startsWith("/static/favicon")) {
        assert.match(r.encoding, /^(gzip|br)$/, `${r.path} (${r.bytes} B) is not compressed`);
      }
    }
  } finally {
    await b.close();
    await s.close();
  }
});
