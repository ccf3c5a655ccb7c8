/**
 * An intraday day in Chromium at 1440 and 390 px (docs/console.md, "Intraday"): the day-ahead
 * version two days before, then at 10:07 Berlin on the day a forecast update of every area (+400
 * kW) goes out as intraday v2 with the quarter-hours before 10:30 frozen, and the TSO simulator
 * (on the service's clock) confirms it. The row says "intraday v2 · frozen until 10:30 Berlin · 4
 * of 4 confirmed"; the version history drill-down lists v2 and v1 with phase, sent, frozen and
 * the TSO's status, and follows the selected day while open (the next day lists only its v1); the chart draws the schedule the TSO has as a dashed line per area and a tap
 * reads both values; the deviation locked in the frozen quarter-hours is said in words (and is
 * an attention item); the manual Submit stays enabled after gate closure. As time passes, "frozen
 * until" and the chart's frozen shading move with the clock (now + lead time), with a "now" line.
 *
 * Real parts: the app on 127.0.0.1 with a temp-file KV and a fake clock (the page's clock set to
 * the same instant), the outbox and inbox on disk, the TSO simulator, Chromium. Skipped with a
 * printed reason when Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import { startTsoSimulator } from "../../dev/tso_simulator.ts";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { call } from "../support/app.ts";
import {
  launchBrowser,
  shot,
  shotOf,
  skipBrowserTests,
  watchProblems,
} from "../support/chromium.ts";
import {
  orchestrate,
  postForecast,
  PROC,
  proc,
  putLocation,
  rig,
} from "../support/day_ahead_rig.ts";
import { FILES_CHANNEL_ENV } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";

const DAY = "2026-11-24"; // Tue; CET (UTC+1)
const NEXT = "2026-11-25"; // first sent at 10:07 on DAY: v1 only
const D2 = "2026-11-22T08:00:00Z"; // Sun 09:00 Berlin, before the TSO deadline of DAY
const ON_DAY = "2026-11-24T09:07:00Z"; // 10:07 Berlin on the day
const AREA_LIST = Object.values(AREAS); // amprion, tennet, transnet, 50Hertz: 1, 2, 3, 4 MW

Deno.test({
  name:
    "console e2e: an intraday day — phase line, version history, TSO schedule, locked deviation",
  ignore: skipBrowserTests("console intraday e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  const inbox = await Deno.makeTempDir({ prefix: "console-intraday-inbox-" });
  const r = await rig(D2, {
    ...FILES_CHANNEL_ENV,
    SCHEDULE_INBOX_DIR: inbox,
    ORCHESTRATOR_HORIZON_DAYS: "2",
  });
  const tsos = startTsoSimulator({ outbox: r.outbox, inbox, pollMs: 0, clock: r.clock });
  const b = await launchBrowser();
  const page = b.page;
  const problems = await watchProblems(page);
  const pass = async () => {
    const p = await orchestrate(r.s);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    await tsos.pump();
    const imp = await call(`${r.s.url}/v1/schedule-responses/import`, {
      method: "POST",
      headers: proc,
    });
    assert.equal(imp.status, 200, JSON.stringify(imp.body));
  };
  const forecasts = async (extraKw: number) => {
    for (const [i] of AREA_LIST.entries()) {
      await postForecast(r.s, i + 1, DAY, Array(96).fill(1_000 * (i + 1) + extraKw));
    }
  };
  const row = page.locator(`tr[data-day="${DAY}"]`);
  const list = page.locator(".schedules");
  const hertz = list.locator(`li[data-area="${AREAS.hertz}"]`);

  /** Opens the console, selects DAY and checks every intraday part; then screenshots. */
  const checkPage = async (name: string) => {
    await page.goto(`${r.s.url}/console`);
    await page.waitForSelector("html[data-ready=true]");
    if (await page.locator("#process-key").isVisible()) {
      await page.fill("#process-key", PROC);
      await page.press("#process-key", "Enter");
    }
    await row.waitFor();
    // "4 of 4" is the TSO summary's, not said twice (issue 36, item 10).
    assert.equal(
      await row.locator(".phase-line").innerText(),
      "intraday v2 · frozen until 10:30 Berlin",
    );
    // Gate closure has passed, a quarter-hour is open: the manual submit stays enabled.
    assert.equal(
      await page.getByRole("button", { name: `Submit ${DAY}` }).isEnabled(),
      true,
      "Submit enabled after gate closure while quarter-hours are open",
    );
    await row.locator("[aria-pressed]").first().click();
    await list.waitFor();
    assert.equal(
      await list.locator(".phase-line").innerText(),
      "intraday v2 · frozen until 10:30 Berlin",
    );
    // 42 frozen quarter-hours (00:00–10:30) × 0.4 MW × 0.25 h = 4.2 MWh per area, said once.
    const locked = (await list.locator(".locked-deviation").innerText()).replace(/\u00a0/g, " ");
    assert.match(
      locked,
      /^Can no longer be scheduled away: 4\.20 MWh in TransnetBW, 4\.20 MWh in TenneT TSO, 4\.20 MWh in Amprion, 4\.20 MWh in 50Hertz: /,
    );
    // In the attention box one line names every area with its own amount, in the order of the
    // schedule list (by EIC), not four near-identical lines.
    const lockedItem = page.locator('.attention li[data-code="locked_deviation"]');
    assert.equal(await lockedItem.count(), 1);
    assert.equal(
      await lockedItem.locator("a").innerText(),
      "Today (Tue 24 Nov): energy that can no longer be scheduled away: 4.20 MWh in TransnetBW, " +
        "4.20 MWh in TenneT TSO, 4.20 MWh in Amprion, 4.20 MWh in 50Hertz; the frozen quarter-hours " +
        "deviate from the schedules the TSOs have.",
    );
    assert.equal(
      (await page.locator(".attention").innerText()).match(/scheduled away/g)?.length,
      1,
    );

    // The schedule the TSO has: one dashed line per area beside the open position.
    const chart = page.locator(".chart-plot");
    await page.locator(`polyline.tso-series[data-area="${AREAS.hertz}"]`).waitFor();
    assert.equal(await page.locator("polyline.tso-series").count(), 4);
    assert.match(await page.locator(".legend").innerText(), /the TSO has schedule v2/);
    // A tap at 10 % of the plot (about 02:00 Berlin, frozen): 4.4 MW open, the TSO has 4.0 MW.
    const box = (await chart.boundingBox())!;
    await chart.click({ position: { x: 56 + (box.width - 68) * 0.1, y: box.height / 2 } });
    const readout = await page.locator(".chart-readout").innerText();
    assert.match(readout, /50Hertz\s+4\.4\sMW\s*\(TSO has 4\.00\sMW\)/);
    await shot(page, `${name}-day`);

    // The version history, read when opened.
    await hertz.locator(".version-history > summary").click();
    const rows = hertz.locator(".versions-table tbody tr");
    await rows.first().waitFor();
    // On a phone each version is a card whose cells carry their label: compare the values.
    const values = (text: string) =>
      cells(text).map((c) => c.replace(/^(Version|Phase|Sent|Frozen|TSO): /, ""));
    assert.deepEqual(await rows.allInnerTexts().then((x) => x.map(values)), [
      ["v2 (the TSO has it)", "intraday", "10:07 Berlin", "frozen until 10:30 Berlin", "confirmed"],
      ["v1", "day-ahead", "09:00 Berlin Sun 22 Nov", "nothing frozen", "confirmed"],
    ]);
    assert.match(await hertz.locator(".versions-table caption").innerText(), /The TSO has v2\./);
    await shotOf(page.locator(".chart-box"), `${name}-versions`);
    // The open history follows the selected day: the next day has only its v1.
    await page.locator(`tr[data-day="${NEXT}"] [aria-pressed]`).first().click();
    // At 1440 px the open history stays open and reads NEXT's; on a phone the chart moves under
    // NEXT's card and starts closed: opened, it is NEXT's. Never DAY's list.
    const history = hertz.locator(`.version-history[data-day="${NEXT}"]`);
    await history.waitFor();
    if (await history.getAttribute("open") === null) {
      await history.locator("summary").click();
    }
    await hertz.locator('.versions-table tbody tr[data-version="2"]').waitFor({
      state: "detached",
    });
    await rows.first().waitFor();
    assert.deepEqual(
      await rows.evaluateAll((els) => els.map((el) => el.getAttribute("data-version"))),
      ["1"],
    );
    assert.match(await hertz.locator(".versions-table caption").innerText(), /v1|no version/);
    assert.doesNotMatch(await hertz.locator(".versions-table caption").innerText(), /v2/);
    // And back.
    await row.locator("[aria-pressed]").first().click();
    const back = hertz.locator(`.version-history[data-day="${DAY}"]`);
    await back.waitFor();
    if (await back.getAttribute("open") === null) await back.locator("summary").click();
    await hertz.locator('.versions-table tbody tr[data-version="2"]').waitFor();
    assert.equal(await rows.count(), 2);
    assert.ok(
      await page.evaluate(() =>
        document.documentElement.scrollWidth <= document.documentElement.clientWidth
      ),
      "nothing wider than the page",
    );
  };

  try {
    await t.step(
      "day-ahead v1 two days before, intraday v2 at 10:07 Berlin on the day",
      async () => {
        for (const [i, area] of AREA_LIST.entries()) {
          await putLocation(r.s, i + 1, { control_area: area, direction: "consumption" });
        }
        await forecasts(0);
        await pass();
        r.clock.set(Date.parse(ON_DAY));
        await forecasts(400);
        await pass();
        r.clock.advance(60_000);
        const v = await call(
          `${r.s.url}/v1/delivery-days/${DAY}/schedules/${AREAS.hertz}/versions`,
          { headers: proc },
        );
        const body = v.body as { standing_version: number; versions: { tso_status: string }[] };
        assert.equal(body.standing_version, 2, JSON.stringify(v.body));
        assert.deepEqual(body.versions.map((x) => x.tso_status), ["confirmed", "confirmed"]);
      },
    );
    await page.clock.setFixedTime(new Date(r.clock.now()));

    await t.step("1440 px", () => checkPage("40-intraday-1440"));
    await t.step("390 px", async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await checkPage("41-intraday-390");
    });
    await t.step(
      "time passes: frozen until and the shading move with the clock, a now line",
      async () => {
        const frozen = page.locator(".chart-svg rect.frozen");
        const before = (await frozen.boundingBox())!;
        // 10:08 → 10:47 Berlin, without a reload: now + 15 min = 11:02, so 11:15 is the first open.
        r.clock.advance(39 * 60_000);
        await page.clock.setFixedTime(new Date(r.clock.now()));
        const text = "intraday v2 · frozen until 11:15 Berlin";
        await row.locator(".phase-line", { hasText: text }).waitFor();
        assert.equal(await list.locator(".phase-line").innerText(), text);
        await page.waitForFunction((w) => {
          const r = document.querySelector(".chart-svg rect.frozen")!.getBoundingClientRect();
          return r.width > w + 1;
        }, before.width);
        const after = (await frozen.boundingBox())!;
        // 42 quarter-hours (00:00–10:30) frozen before, 45 (00:00–11:15) now.
        assert.ok(
          Math.abs(after.width / before.width - 45 / 42) < 0.01,
          `${before.width} → ${after.width}`,
        );
        const nowX = await page.locator(".now-line line").evaluate((el) =>
          el.getBoundingClientRect().x
        );
        const expected = after.x + (after.width / 45) * (43 + 2 / 15); // 10:47 = 43 QH + 2 min
        assert.ok(Math.abs(nowX - expected) < 1.5, `now line at ${nowX}, expected ${expected}`);
        assert.equal(await page.locator(".now-line text").textContent(), "now");
      },
    );
    assert.deepEqual(problems.csp, [], "no CSP violation");
    assert.deepEqual(problems.exceptions, [], "no uncaught exception");
  } finally {
    await b.close();
    await tsos.close();
    await r.close();
    await Deno.remove(inbox, { recursive: true }).catch(() => {});
  }
});

/** A table row's cells as text (tab-separated by `innerText`; a card on a phone: lines). */
function cells(text: string): string[] {
  return text.split(/\t|\n/).map((c) => c.trim()).filter(Boolean);
}
