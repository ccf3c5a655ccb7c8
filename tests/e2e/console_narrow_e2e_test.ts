/**
 * The console where the operator looks (docs/architecture.md, "Console"), in Chromium at 390 px
 * (a phone) and 1440 px, light and dark: nothing wider than the viewport, every event's message
 * readable, one card per day on the phone; and the operator's truth on screen — a failing
 * publish in its cell, a day with missing forecasts marked, the pill after a pass with failures.
 * Screenshots under `tests/e2e/screenshots/` (`12-*`).
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, real market locations and
 * forecasts, the local outbox, an sFTP target where nothing listens, Debian's Chromium.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { startSimulator } from "../../dev/market_platform_simulator.ts";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { addDays, nextOpenDay, quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { call, startServer } from "../support/app.ts";
import { freshStart, launchChromium, shot, shotOf, skipBrowserTests } from "../support/chromium.ts";
import { EXT, postForecast, PROC, proc, putLocation } from "../support/day_ahead_rig.ts";
import { freePort } from "../support/net.ts";
import { AREAS } from "../support/portfolio.ts";
import { tempDir } from "../support/temp.ts";

/** Elements wider than the viewport (tag, class, width), the widest first. */
function overflowing(page: Page) {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>("body *")) {
      const r = el.getBoundingClientRect();
      if (r.width > vw + 1 || r.right > vw + 1) {
        out.push(`${el.tagName.toLowerCase()}.${el.className} ${Math.round(r.width)}px`);
      }
    }
    const cells = [...document.querySelectorAll<HTMLElement>(".days-table thead th")].map((e) =>
      `${e.innerText}:${Math.round(e.getBoundingClientRect().width)}`
    );
    return { vw, scroll: document.documentElement.scrollWidth, out: out.slice(0, 8), cells };
  });
}

Deno.test({
  name:
    "console e2e: 390 and 1440 px, light and dark; failures, missing forecasts and pass health shown",
  ignore: skipBrowserTests("console narrow e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  await using tmp = await tempDir("console-narrow-e2e-");
  const sim = await startSimulator();
  await Deno.writeTextFile(`${tmp.path}/ca.pem`, sim.caCert);
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    OUTBOX_DIR: `${tmp.path}/outbox`,
    MARKET_PLATFORM_URL: sim.url,
    MARKET_PLATFORM_API_KEY: sim.apiKey,
    MARKET_PLATFORM_CA_FILE: `${tmp.path}/ca.pem`,
    BALANCING_GROUP: "11XDE-EXAMPLE--H",
    SENDER_EIC: "11XDE-EXAMPLE--H",
  });
  const healthy = addDays(nextOpenDay(Date.now()), 1);
  const missing = addDays(healthy, 1);
  // One browser and page; a step sets its width and scheme and loads the console afresh.
  const chromium = await launchChromium();
  try {
    const { page } = await chromium.newPage();
    // Two consumers with customer forecasts for both days; a PV park with one for the first only.
    for (
      const [n, area, direction] of [
        [1, AREAS.amprion, "consumption"],
        [2, AREAS.tennet, "consumption"],
        [3, AREAS.amprion, "generation"],
      ] as const
    ) {
      await putLocation(s, n, { control_area: area, direction, name: `location ${n}` });
    }
    for (const day of [healthy, missing]) {
      await postForecast(s, 1, day, Array(quarterHourCount(day)).fill(1_200));
      await postForecast(s, 2, day, Array(quarterHourCount(day)).fill(800));
    }
    await postForecast(s, 3, healthy, Array(quarterHourCount(healthy)).fill(500));
    const step = (day: string, name: string) =>
      call(`${s.url}/v1/delivery-days/${day}/${name}`, { method: "POST", headers: proc });
    for (const day of [healthy, missing]) assert.equal((await step(day, "aggregate")).status, 200);
    assert.equal((await step(healthy, "publish")).status, 200);
    // From now on publishing goes to an sFTP server that is not there.
    const cfg = await call(`${s.url}/v1/console/config`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({
        publish_target: "sftp",
        sftp_host: "127.0.0.1",
        sftp_port: freePort(),
        sftp_username: "bridge",
        sftp_password: "correct-horse-battery",
      }),
    });
    assert.equal(cfg.status, 200, JSON.stringify(cfg.body));
    assert.equal((await step(missing, "publish")).status, 502);
    // A manual pass: the healthy day is submitted, the other one fails to publish again.
    assert.equal(
      (await call(`${s.url}/v1/orchestrate`, { method: "POST", headers: proc })).status,
      200,
    );

    for (const [width, height] of [[390, 844], [1440, 900]] as const) {
      for (const scheme of ["light", "dark"] as const) {
        await t.step(`${width} px, ${scheme}`, async () => {
          await page.setViewportSize({ width, height });
          await page.emulateMedia({ colorScheme: scheme });
          await freshStart(page, `${s.url}/console`);
          await page.waitForSelector("html[data-ready=true]");
          await page.fill("#process-key", PROC);
          await page.press("#process-key", "Enter");
          const failing = page.locator(`tr[data-day="${missing}"]`);
          await failing.locator(".failure-text").first().waitFor();
          await page.locator(".ev .ev-msg").first().waitFor();
          // The operator's truth, in words.
          assert.match(
            await failing.locator(".failure-text").first().innerText(),
            /^publish failed \d{2}:\d{2} Berlin: .*sFTP connection to 127\.0\.0\.1:\d+ failed.* · \d+ attempts?/,
          );
          assert.match(
            await failing.locator("th").innerText(),
            /1 of 3 market locations without forecast/,
          );
          assert.doesNotMatch(
            await page.locator(`tr[data-day="${healthy}"] th`).innerText(),
            /without forecast|failing/,
          );
          const pill = page.locator(".pill");
          assert.match(await pill.innerText(), /the last pass had \d+ failed steps?/);
          assert.equal(await pill.getAttribute("data-health"), "amber");
          await shot(page, `12-console-${width}-${scheme}`);
          // Layout: nothing wider than the viewport; every message readable.
          const o = await overflowing(page);
          assert.ok(o.scroll <= o.vw + 1, `page scrolls sideways: ${JSON.stringify(o)}`);
          assert.deepEqual(o.out, [], `wider than ${o.vw} px: ${o.cells.join(" ")}`);
          const msgs = await page.locator(".ev .ev-msg").evaluateAll((els) =>
            els.slice(0, 20).map((e) => {
              const r = e.getBoundingClientRect();
              return { w: Math.round(r.width), h: Math.round(r.height) };
            })
          );
          for (const m of msgs) {
            assert.ok(m.w >= 150, `a message only ${m.w} px wide`);
            assert.ok(m.h < 200, `a message ${m.h} px tall`);
          }
          if (width === 390) {
            // One card per day: the row is a block, its cells labelled.
            assert.equal(
              await failing.evaluate((el) => getComputedStyle(el).display),
              "block",
            );
          }
          if (width === 1440 && scheme === "light") {
            await failing.scrollIntoViewIfNeeded();
            await shotOf(failing, "12-failing-publish-missing-forecasts");
            await shotOf(page.locator(`tr[data-day="${healthy}"]`), "12-healthy-day");
          }
        });
      }
    }
  } finally {
    await chromium.close();
    await s.close();
    await sim.close();
  }
});
