/**
 * Attention first and truthful rows in Chromium (docs/console.md), at 390 and 1440 px, light and
 * dark: tomorrow without state has its row with the deadline; every schedule of tomorrow
 * confirmed is green; new input after the confirmation turns the summary amber; a TSO rejection
 * and an anomaly (answer files imported from the inbox) reach the summary with their reasons and
 * turn the day's Submitted cell red; an item's link selects its day and brings the row into view.
 *
 * Real parts: the app on 127.0.0.1 with a temp-file KV and a fake clock (the page's clock is set
 * to the same instant), the outbox and inbox on disk, Chromium. Skipped with a printed reason
 * when Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { FakeClock } from "../../lib/clock.ts";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { call, startServer } from "../support/app.ts";
import { launchBrowser, shotOf, skipBrowserTests, watchProblems } from "../support/chromium.ts";
import { EXT, ext, postForecast, PROC, proc } from "../support/day_ahead_rig.ts";
import { FILES_CHANNEL_ENV } from "../support/fahrplan.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { tempDir } from "../support/temp.ts";
import { ackFile, anoFile, cnfFile, TSO } from "../support/tso_answers.ts";

const NOW = Date.parse("2026-11-24T08:00:00Z"); // Tue 09:00 Berlin
const T = "2026-11-25"; // tomorrow
const U = "2026-11-26";
function summaryShot(page: Page, name: string) {
  return shotOf(page.locator(".attention"), name);
}

async function open(page: Page, url: string) {
  await page.goto(`${url}/console`);
  await page.waitForSelector("html[data-ready=true]");
  await page.fill("#process-key", PROC);
  await page.press("#process-key", "Enter");
  await page.locator(".attention").waitFor();
}

/** Loads the page again (the key stays in this browser's storage). */
async function reload(page: Page) {
  await page.reload();
  await page.waitForSelector("html[data-ready=true]");
  await page.locator(".attention").waitFor();
}

Deno.test({
  name: "console e2e: attention summary and truthful rows (390/1440 px, light/dark)",
  ignore: skipBrowserTests("console attention e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  await using tmp = await tempDir("console-attention-e2e-");
  const dir = tmp.path;
  const clock = new FakeClock(NOW);
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    ...FILES_CHANNEL_ENV,
    OUTBOX_DIR: `${dir}/outbox`,
    SCHEDULE_INBOX_DIR: `${dir}/inbox`,
  }, { clock });
  const b = await launchBrowser();
  const page = b.page;
  const problems = await watchProblems(page);
  await page.clock.setFixedTime(new Date(NOW));
  const answer = async (name: string, xml: string) => {
    await Deno.mkdir(`${dir}/inbox`, { recursive: true });
    await Deno.writeTextFile(`${dir}/inbox/${name}`, xml);
  };
  const importAnswers = async () => {
    const r = await call(`${s.url}/v1/schedule-responses/import`, {
      method: "POST",
      headers: proc,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    clock.advance(1000); // the attention list is computed at most once a second
  };
  try {
    assert.equal(
      (await call(`${s.url}/v1/console/start`, { method: "POST", headers: proc })).status,
      200,
    );
    await t.step("tomorrow without state has its row and the summary says so", async () => {
      await open(page, s.url);
      const row = page.locator(`tr[data-day="${T}"]`);
      await row.waitFor();
      assert.match(await row.locator("th .day-name").innerText(), /^Wed 25 Nov · tomorrow$/);
      assert.equal(
        await row.locator('td[data-label="Submitted"]').innerText(),
        "nothing sent — TSO deadline 14:30 Berlin in 5 h 30 min",
      );
      assert.match(
        await page.locator('tr[data-day="2026-11-24"] th .day-name').innerText(),
        /today/,
      );
      const item = page.locator('.attention li[data-code="not_sent_yet"]');
      assert.equal(
        await item.innerText(),
        "·\nTomorrow (Wed 25 Nov): nothing sent — TSO deadline 14:30 Berlin in 5 h 30 min.",
      );
      await summaryShot(page, "20-attention-before-nothing-sent");
    });

    // Four areas, one location each, for T and U; both submitted on the files channel.
    const areas = Object.values(AREAS);
    for (const [i, area] of areas.entries()) {
      const r = await call(`${s.url}/v1/market-locations/${maloId(i + 1)}`, {
        method: "PUT",
        headers: ext,
        body: JSON.stringify({ control_area: area, direction: "consumption" }),
      });
      assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.body));
      for (const d of [T, U]) await postForecast(s, i + 1, d, Array(96).fill(100 * (i + 1)));
    }
    const run = async (d: string) => {
      for (const st of ["aggregate", "submit"]) {
        const r = await call(`${s.url}/v1/delivery-days/${d}/${st}`, {
          method: "POST",
          headers: proc,
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }
    };
    await run(T);

    await t.step("all of tomorrow confirmed is green; new input turns it amber", async () => {
      for (const tso of Object.values(TSO)) await answer(`t-${tso}.xml`, cnfFile(T, tso, 1));
      await importAnswers();
      await reload(page);
      const box = page.locator(".attention");
      await page.locator('.attention li[data-code="all_confirmed"]').waitFor();
      assert.equal(await box.getAttribute("data-tone"), "ok");
      assert.equal(await page.locator(".attention li").count(), 1);
      assert.match(
        await page.locator('.attention li[data-code="all_confirmed"]').innerText(),
        /All schedules for tomorrow \(Wed 25 Nov\) are confirmed: schedule v1 in 4 of 4 areas/,
      );
      assert.equal(
        await page.locator(`tr[data-day="${T}"]`).getAttribute("data-tso"),
        "ok",
      );
      await summaryShot(page, "21-attention-before-all-confirmed");
      await postForecast(s, 1, T, Array(96).fill(150));
      clock.advance(1000);
      await page.locator('.attention li[data-code="schedule_outdated"]').waitFor();
      assert.equal(await box.getAttribute("data-tone"), "warn");
      assert.equal(await page.locator('.attention li[data-code="all_confirmed"]').count(), 0);
      await page.locator(`tr[data-day="${T}"][data-tso="warn"]`).waitFor();
      assert.match(
        await page.locator(`tr[data-day="${T}"] .tso-summary`).innerText(),
        /^confirmed: schedule v1 in 4 of 4 areas \(aggregate v\d+\) · aggregate v\d+ not sent yet$/,
      );
      await summaryShot(page, "22-attention-after-new-input-amber");
    });

    await t.step("a rejection and an anomaly reach the summary and the row", async () => {
      await run(U);
      await answer("u-rej.xml", ackFile(U, TSO.tennet, 1, "A02", "wrong balancing group"));
      await answer("u-ano.xml", anoFile(U, TSO.transnet, "counterparty time series differs"));
      await answer("u-cnf1.xml", cnfFile(U, TSO.amprion, 1));
      await answer("u-cnf2.xml", cnfFile(U, TSO.hertz, 1));
      await importAnswers();
      const box = page.locator(".attention");
      await page.locator('.attention li[data-code="tso_anomaly"]').waitFor();
      assert.equal(await box.getAttribute("data-tone"), "error");
      const rejected = page.locator('.attention li[data-code="tso_rejected"]');
      assert.match(
        await rejected.innerText(),
        /Thu 26 Nov: the TSO rejected the schedule for 10YDE-EON------1 \(schedule v1\): wrong balancing group\./,
      );
      assert.match(
        await page.locator('.attention li[data-code="tso_anomaly"]').innerText(),
        /anomaly in the schedule for 10YDE-ENBW-----N .*: counterparty time series differs\./,
      );
      // Red in the summary: the item's text colour is the error colour of the theme.
      await summaryShot(page, "23-attention-after-rejection-anomaly");
      // The link selects the day and brings its row into view.
      await rejected.locator("a").click();
      const row = page.locator(`tr[data-day="${U}"]`);
      await row.locator('button[aria-pressed="true"]').waitFor();
      assert.ok(await row.isVisible());
      assert.ok(
        await row.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return r.top >= 0 && r.bottom <= innerHeight + 1;
        }),
        "the row is in view",
      );
      const cell = row.locator('td[data-label="Submitted"] .step');
      assert.match(await cell.getAttribute("class") ?? "", /step-failed/);
      const text = await cell.innerText();
      assert.match(
        text,
        /10YDE-EON------1: rejected by the TSO \(schedule v1\): wrong balancing group/,
      );
      assert.match(text, /10YDE-ENBW-----N: anomaly reported by the TSO/);
      assert.equal(await row.getAttribute("data-tso"), "error");
    });

    for (const [width, height] of [[390, 844], [1440, 900]] as const) {
      for (const scheme of ["light", "dark"] as const) {
        await t.step(`${width} px, ${scheme}: red summary and row, nothing wider`, async () => {
          await page.setViewportSize({ width, height });
          await page.emulateMedia({ colorScheme: scheme });
          await reload(page);
          await page.locator('.attention li[data-code="tso_rejected"]').waitFor();
          // The summary (from the status) may be drawn before the day table (its own request).
          await page.locator('tr[data-day="2026-11-26"] td[data-label="Submitted"] .badge-error')
            .first().waitFor();
          const colours = await page.evaluate(() => {
            const box = document.querySelector(".attention")!;
            const mark = document.querySelector('li[data-code="tso_rejected"] .attention-mark')!;
            const cell = document.querySelector(
              'tr[data-day="2026-11-26"] td[data-label="Submitted"] .badge-error',
            );
            return {
              border: getComputedStyle(box).borderLeftColor,
              mark: getComputedStyle(mark).color,
              badge: cell ? getComputedStyle(cell).color : null,
              error: getComputedStyle(document.documentElement).getPropertyValue("--error").trim(),
              scroll: document.documentElement.scrollWidth,
              vw: document.documentElement.clientWidth,
              summaryRight: box.getBoundingClientRect().right,
            };
          });
          assert.equal(colours.border, colours.mark, "box and mark in the error colour");
          assert.ok(colours.badge, "the Submitted cell carries a red TSO badge");
          assert.ok(colours.summaryRight <= colours.vw + 1, JSON.stringify(colours));
          await summaryShot(page, `24-attention-${width}-${scheme}`);
          if (width === 1440 && scheme === "light") {
            await page.evaluate(() => scrollTo(0, 0));
            await shotOf(page, "19-attention-after-top-1440-light", {
              clip: { x: 0, y: 0, width: 1440, height: 700 },
            });
          }
          const row = page.locator('tr[data-day="2026-11-26"]');
          await row.scrollIntoViewIfNeeded();
          await shotOf(row, `25-row-rejected-${width}-${scheme}`);
        });
      }
    }
    assert.deepEqual(problems.csp, [], "no CSP violation");
    assert.deepEqual(problems.exceptions, [], "no uncaught exception");
  } finally {
    await b.close();
    await s.close();
  }
});
