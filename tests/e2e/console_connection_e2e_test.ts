/**
 * A stopped service under an open console (docs/architecture.md, "Console"; issue 20, item 3):
 * a real `main.ts` process serves the console to Chromium; on SIGTERM it exits within 5 s
 * although the console's live stream is open, and the console stops looking alive: the pill
 * turns grey ("connection lost since HH:MM Berlin, retrying"), the stream no longer says
 * "live", and the promised next pass is called overdue once its time has passed.
 *
 * Skipped with a printed reason when Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { launchBrowser, shot, skipBrowserTests } from "../support/chromium.ts";
import { PROC as KEY } from "../support/keys.ts";
import { spawnService } from "../support/service_process.ts";

Deno.test({
  name: "console e2e: the service stops under an open console → exit within 5 s, pill grey",
  ignore: skipBrowserTests("console connection e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  await ensureBundle();
  const svc = await spawnService({
    PROCESS_API_KEYS: `ops:${KEY}`,
    RATE_LIMIT_PER_MINUTE: "0",
    ORCHESTRATOR_AUTOSTART: "true",
  });
  const b = await launchBrowser();
  const page = b.page;
  let exited = false;
  try {
    // The browser's clock runs on its own; the test moves it forward past the promised pass.
    await page.clock.install();
    await page.goto(`${svc.url}/console`);
    await page.waitForSelector("html[data-ready=true]");
    await page.fill("#process-key", KEY);
    await page.press("#process-key", "Enter");
    await page.locator(".conn-live").waitFor({ timeout: 10_000 });
    const pill = page.locator(".orch .pill");
    await page.locator(".pill[data-state=running]").waitFor({ timeout: 10_000 });
    assert.notEqual(await pill.getAttribute("data-health"), "lost");
    const nextPass = page.locator(".pill-note time", { hasText: "next pass" });
    assert.doesNotMatch(await nextPass.innerText(), /overdue/);

    const t0 = performance.now();
    svc.kill("SIGTERM");
    const status = await Promise.race([
      svc.exited,
      new Promise<null>((res) => setTimeout(() => res(null), 5_000)),
    ]);
    assert.ok(status, "the service did not exit within 5 s with a console open");
    exited = true;
    assert.ok(performance.now() - t0 < 5_000);

    await page.locator(".pill[data-health=lost]").waitFor({ timeout: 10_000 });
    assert.match(
      await pill.innerText(),
      /connection lost since \d\d:\d\d Berlin, retrying/,
    );
    assert.ok(await pill.evaluate((el) => el.classList.contains("pill-lost")));
    assert.equal(await page.locator(".conn-live").count(), 0, "the stream still says live");
    assert.match(await page.locator(".conn").innerText(), /connection lost since/);
    assert.match(await page.locator(".pill-note").innerText(), /last known: orchestrator running/);
    // Two minutes later the promised pass lies in the past: it says so.
    await page.clock.fastForward("02:00");
    await page.locator(".pill-note time[data-overdue=true]").waitFor({ timeout: 5_000 });
    assert.match(await nextPass.innerText(), /^next pass \d\d:\d\d Berlin — overdue$/);
    await shot(page, "connection-lost");
  } finally {
    if (!exited) svc.kill("SIGKILL");
    await b.close();
    await svc.close();
  }
});
