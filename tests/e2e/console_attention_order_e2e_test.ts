/**
 * The attention box on a healthy evening (docs/console_attention.md; issue 28), at 390 and
 * 1440 px: today and tomorrow confirmed, a PV park whose forecasts for the coming days are due
 * only at 14:30 the day before each. The box answers "is everything for today and tomorrow
 * confirmed?" on the first screen, gives the good news in one line before any information, and
 * says the park's missing forecasts once for the run of days, as information; at 14:30 the next
 * day's turns into a warning, which comes first.
 *
 * Before it, at 19:00 on a service without any state, today's and tomorrow's rows say what comes
 * next (an intraday version from the next open quarter-hour); a first version sent at 19:23,
 * after the TSO deadline, says so in the row and as a `deadline_missed` warning.
 *
 * The first pass runs the day before at 14:00, so today's schedule went out day-ahead.
 *
 * Real parts: the app on 127.0.0.1 with a temp-file KV and a fake clock (the page's clock set to
 * the same instant), the outbox and inbox on disk (files channel), Chromium. Skipped with a
 * printed reason when Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { FakeClock } from "../../lib/clock.ts";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { call, startServer, type TestServer } from "../support/app.ts";
import { launchChromium, shot, skipBrowserTests } from "../support/chromium.ts";
import { EXT, PROC, proc, putLocation } from "../support/day_ahead_rig.ts";
import { FILES_CHANNEL_ENV } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";
import { tempDir } from "../support/temp.ts";
import { EVENING, evening, TODAY, TOMORROW } from "../support/evening.ts";

async function items(page: Page) {
  return await page.locator(".attention li").evaluateAll((els) =>
    els.map((el) => `${el.getAttribute("data-code")}`)
  );
}

Deno.test({
  name: "console e2e: attention on a healthy evening — answer and good news first (390/1440 px)",
  ignore: skipBrowserTests("console attention order e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  await using tmp = await tempDir("console-attention-order-e2e-");
  const dir = tmp.path;
  await using chromium = await launchChromium();
  const servers: TestServer[] = [];
  try {
    await t.step(
      "at 19:00, today and tomorrow without state have rows saying what comes next",
      async () => {
        const bare = await startServer({
          PROCESS_API_KEYS: `ops:${PROC}`,
          RATE_LIMIT_PER_MINUTE: "0",
        }, {
          clock: new FakeClock(Date.parse("2026-11-24T18:00:00Z")), // Tue 19:00 Berlin
        });
        try {
          for (const [width, height] of [[390, 844], [1440, 900]] as const) {
            await using b = await chromium.newPage({ viewport: { width, height } });
            const page = b.page;
            await page.clock.setFixedTime(new Date("2026-11-24T18:00:00Z"));
            await page.goto(`${bare.url}/console`);
            await page.waitForSelector("html[data-ready=true]");
            await page.fill("#process-key", PROC);
            await page.press("#process-key", "Enter");
            const cell = (day: string) =>
              page.locator(`tr[data-day="${day}"] td[data-label="Submitted"]`);
            await cell(TOMORROW).waitFor();
            assert.equal(
              await cell(TODAY).innerText(),
              "missed: TSO deadline passed, nothing sent · next: an intraday version for the " +
                "quarter-hours from 19:15 Berlin",
              `${width} px`,
            );
            assert.equal(
              await cell(TOMORROW).innerText(),
              "missed: TSO deadline passed, nothing sent · next: an intraday version for every " +
                "quarter-hour of the day",
              `${width} px`,
            );
          }
        } finally {
          await bare.close();
        }
      },
    );
    await t.step("a first version sent after the TSO deadline says so, for the day", async () => {
      const late = await startServer({
        PROCESS_API_KEYS: `ops:${PROC}`,
        EXTERNAL_API_KEYS: `acme:${EXT}`,
        RATE_LIMIT_PER_MINUTE: "0",
        ...FILES_CHANNEL_ENV,
        OUTBOX_DIR: `${dir}/late-outbox`,
        ORCHESTRATOR_HORIZON_DAYS: "1",
      }, { clock: new FakeClock(Date.parse("2026-11-24T18:23:00Z")) }); // Tue 19:23 Berlin
      try {
        await putLocation(late, 1, {
          control_area: AREAS.amprion,
          direction: "consumption",
          standard_load_profile: "H0",
          annual_kwh: 3_500_000,
        });
        const p = await call(`${late.url}/v1/orchestrate`, { method: "POST", headers: proc });
        assert.equal(p.status, 200, JSON.stringify(p.body));
        for (const [width, height] of [[390, 844], [1440, 900]] as const) {
          await using b = await chromium.newPage({ viewport: { width, height } });
          const page = b.page;
          await page.clock.setFixedTime(new Date("2026-11-24T18:23:00Z"));
          await page.goto(`${late.url}/console`);
          await page.waitForSelector("html[data-ready=true]");
          await page.fill("#process-key", PROC);
          await page.press("#process-key", "Enter");
          const row = page.locator(`tr[data-day="${TOMORROW}"] .late-first`);
          await row.waitFor();
          assert.equal(
            await row.innerText(),
            "TSO deadline missed — due 14:30 Berlin today, first version sent 19:23 Berlin today",
          );
          assert.equal(
            await page.locator(`tr[data-day="${TODAY}"] .late-first`).innerText(),
            // Today's deadline was yesterday's: said so, not read as today's (issue 36, item 10).
            "TSO deadline missed — due 14:30 Berlin yesterday, first version sent 19:23 Berlin today",
          );
          const item = page.locator(
            `.attention li[data-code="deadline_missed"][data-day="${TOMORROW}"]`,
          );
          assert.equal(
            await item.innerText(),
            "!\nTomorrow (Wed 25 Nov): TSO deadline missed — due 14:30 Berlin today, first version sent 19:23 Berlin today.",
          );
          assert.match(await item.getAttribute("class") ?? "", /attention-warn/);
        }
      } finally {
        await late.close();
      }
    });
    const { s, clock } = await evening(dir);
    servers.push(s);

    for (const [width, height] of [[390, 844], [1440, 900]] as const) {
      await t.step(`${width} px: the answer and the good news on the first screen`, async () => {
        await using b = await chromium.newPage({ viewport: { width, height } });
        const page = b.page;
        await page.clock.setFixedTime(new Date(clock.now()));
        await page.goto(`${s.url}/console`);
        await page.waitForSelector("html[data-ready=true]");
        await page.fill("#process-key", PROC);
        await page.press("#process-key", "Enter");
        await page.locator('.attention li[data-code="all_confirmed"]').waitFor();
        assert.deepEqual(await items(page), ["all_confirmed", "missing_forecasts"]);
        assert.equal(
          await page.locator(".attention-answer").innerText(),
          "Today and tomorrow: every schedule confirmed.",
        );
        assert.match(
          await page.locator('.attention li[data-code="all_confirmed"]').innerText(),
          /^✓\nAll schedules for today \(Tue 24 Nov\) and tomorrow \(Wed 25 Nov\) are confirmed — today: schedule v1 in 4 of 4 areas/,
        );
        const missing = page.locator('.attention li[data-code="missing_forecasts"]');
        assert.match(
          await missing.innerText(),
          /^·\n1 market location without load profile has no forecast in the latest aggregates for Thu 26 Nov – \w{3} \d+ \w{3} \(\d days\)\. Due the day before each, the first 14:30 Berlin tomorrow\.$/,
        );
        for (const sel of [".attention-answer", '.attention li[data-code="all_confirmed"]']) {
          const box = await page.locator(sel).boundingBox();
          assert.ok(box && box.y + box.height <= height, `${sel} on the first screen`);
        }
        await shot(page, `27-attention-evening-${width}`);
      });
    }

    await t.step(
      "from 14:30 the day before, the next day's missing forecast is a warning",
      async () => {
        clock.advance(Date.parse("2026-11-25T13:30:00Z") - EVENING); // Wed 14:30 Berlin
        await using b = await chromium.newPage({ viewport: { width: 390, height: 844 } });
        const page = b.page;
        await page.clock.setFixedTime(new Date(clock.now()));
        await page.goto(`${s.url}/console`);
        await page.waitForSelector("html[data-ready=true]");
        await page.fill("#process-key", PROC);
        await page.press("#process-key", "Enter");
        await page.locator('.attention li[data-code="missing_forecasts"].attention-warn').waitFor();
        const list = await items(page);
        assert.equal(list[0], "missing_forecasts");
        assert.match(
          await page.locator(".attention li").first().innerText(),
          /^!\nTomorrow \(Thu 26 Nov\): 1 market location .* has no forecast in the latest aggregate/,
        );
        assert.equal(await page.locator(".attention").getAttribute("data-tone"), "warn");
      },
    );
  } finally {
    for (const x of servers) await x.close();
  }
});
