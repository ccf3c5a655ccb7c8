/**
 * The console's after-delivery view in a real browser (docs/console.md, "After delivery"; issue
 * 27, item 4), at 1440 px (light, then dark, English numbers) and at 390 px (touch, `de-DE`
 * numbers): selecting yesterday's row shows the day's totals in one sentence, one chart per area,
 * the readout of a quarter-hour on keyboard focus and the arrow keys (price and cost, "—" where
 * unknown), completeness and the worst quarter-hours; a day without settlement says "No actuals
 * for this day yet"; the month table answers "how did we do"; nothing is wider than the phone;
 * no CSP violation, no exception.
 *
 * NOTE for the lead: the settlement routes (`GET /v1/delivery-days/{day}/settlement`,
 * `GET /v1/settlement/months/{YYYY-MM}`) are built on another branch, so here they — and the
 * day list — are served from a fixture in the wire shapes of `lib/wire/settlement.ts` by
 * Playwright's `page.route` interception (`stubRoutes`). After merging, switch the two settlement
 * stubs to the real routes fed with actuals and prices. Everything else is the real app on a
 * temp-file KV and Debian's Chromium.
 *
 * Skipped with a printed reason when Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import type { Page, Route } from "playwright-core";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { addDays, deliveryDay, localDayOf } from "../../lib/domain/delivery_day.ts";
import type { DayOverview } from "../../lib/console/types.ts";
import type { DaySettlement } from "../../lib/wire/settlement.ts";
import { totalsSentence } from "../../lib/console/settlement_texts.ts";
import { startServer } from "../support/app.ts";
import {
  type Chromium,
  launchChromium,
  shotOf,
  skipBrowserTests,
  watchProblems,
} from "../support/chromium.ts";
import { PROC as KEY } from "../support/keys.ts";
import { daySettlement, monthSettlement } from "../support/settlement_fixture.ts";

const NOW = Date.now();
const TODAY = localDayOf(NOW);
const YESTERDAY = addDays(TODAY, -1);
const OLDER = addDays(TODAY, -3);

/** A stored day whose steps all ran (what the row needs; nothing else is asserted on it). */
function overview(day: string): DayOverview {
  const at = new Date(NOW - 48 * 3_600_000).toISOString();
  const step = { version: 1, at, by: "orchestrator", stale: false, stale_reason: null, detail: {} };
  return {
    delivery_day: day,
    quarter_hours: deliveryDay(day).quarterHours.length,
    gate_closure: deliveryDay(day).gateClosure.toString(),
    gate_closure_passed: true,
    input_version: 1,
    last_input: null,
    steps: { forecast: step, aggregated: step, published: step, submitted: step },
    totals: {},
    warnings: [],
    schedules: [],
    failures: { forecast: null, aggregated: null, published: null, submitted: null },
  };
}

/** Yesterday's settlement: the fixture on the real quarter-hours of the day. */
function settlementOf(day: string): DaySettlement {
  const d = deliveryDay(day);
  return daySettlement(day, d.quarterHours[0].toString(), d.quarterHours.length);
}

const json = (route: Route, status: number, body: unknown) =>
  route.fulfill({ status, contentType: "application/json", body: JSON.stringify(body) });

/** The day list and the two settlement routes from fixtures (see the note above). */
async function stubRoutes(page: Page): Promise<string[]> {
  const asked: string[] = [];
  await page.route(
    "**/v1/console/delivery-days",
    (r) =>
      json(r, 200, { delivery_days: [OLDER, YESTERDAY, TODAY].map(overview), without_state: [] }),
  );
  await page.route(
    "**/v1/delivery-days/*/open-position",
    (r) => json(r, 404, { detail: "No open position stored." }),
  );
  // Stub of GET /v1/delivery-days/{day}/settlement (another branch builds the route).
  await page.route("**/v1/delivery-days/*/settlement", (r) => {
    const day = new URL(r.request().url()).pathname.split("/")[3];
    asked.push(day);
    return day === YESTERDAY
      ? json(r, 200, settlementOf(day))
      : json(r, 404, { detail: `No settlement for ${day}.` });
  });
  // Stub of GET /v1/settlement/months/{YYYY-MM} (another branch builds the route).
  await page.route("**/v1/settlement/months/*", (r) => {
    const month = new URL(r.request().url()).pathname.split("/").pop()!;
    return json(r, 200, monthSettlement(month, 3));
  });
  return asked;
}

async function enterKey(page: Page) {
  await page.waitForSelector("html[data-ready=true]");
  await page.fill("#process-key", KEY);
  await page.press("#process-key", "Enter");
}

/** Visible text with no-break spaces as spaces. */
const plain = (s: string) => s.replace(/\u00a0/g, " ").replace(/\s+/g, " ").trim();

/** Whether the page scrolls sideways, and the widest offenders. */
function sideways(page: Page) {
  return page.evaluate(() => {
    const vw = document.documentElement.clientWidth;
    const out: string[] = [];
    for (const el of document.querySelectorAll<HTMLElement>("body *")) {
      const r = el.getBoundingClientRect();
      if (r.right > vw + 1) out.push(`${el.tagName.toLowerCase()}.${el.className} ${r.right}`);
    }
    return { scroll: document.documentElement.scrollWidth > vw, out: out.slice(0, 6) };
  });
}

async function openYesterday(page: Page) {
  await page.locator(`tr[data-day="${YESTERDAY}"] button.linklike`).first().click();
  const view = page.locator(`#days .after-delivery[data-day="${YESTERDAY}"]`);
  await view.waitFor();
  return view;
}

async function desktop(t: Deno.TestContext, chromium: Chromium, url: string) {
  const b = await chromium.newPage({ viewport: { width: 1440, height: 1000 }, locale: "en-GB" });
  const page = b.page;
  const problems = await watchProblems(page);
  const asked = await stubRoutes(page);
  const s = settlementOf(YESTERDAY);
  try {
    await page.goto(`${url}/console`);
    await enterKey(page);
    await t.step("yesterday: the sentence, one chart per area, completeness", async () => {
      const view = await openYesterday(page);
      const sentence = plain(await view.locator(".settlement-day").innerText());
      const expected = totalsSentence({
        day: YESTERDAY,
        where: "all 2 areas",
        totals: s.totals,
        locale: "en-GB",
        nowMs: NOW,
      });
      assert.ok(sentence.includes(plain(expected)), `${sentence}\n!= ${expected}`);
      assert.match(sentence, /^provisional Yesterday in all 2 areas: [\d,.]+ MWh short, /);
      assert.equal(await view.locator("svg.settlement-svg").count(), 2);
      assert.equal(await view.locator("svg.settlement-svg path.settle-act").count(), 2);
      const amprion = view.locator(".settlement-area").first();
      assert.match(
        plain(await amprion.locator(".settlement-completeness").innerText()),
        /^provisional 40 metered · 120 profile-settled · 2 missing market locations · \d+ of \d+ quarter-hours priced/,
      );
      assert.match(plain(await amprion.innerText()), /Yesterday in Amprion: [\d,.]+ MWh short/);
      await amprion.getByText("The 10 worst quarter-hours in Amprion").click();
      assert.equal(await amprion.locator(".worst-table tbody tr").count(), 10);
      await shotOf(view, "27-after-delivery-1440-light");
    });

    await t.step(
      "keyboard: focus the chart, Home, arrows: price and cost in the readout",
      async () => {
        const plot = page.locator(".settlement-chart .chart-plot").first();
        await plot.focus();
        await page.keyboard.press("Home");
        const readout = page.locator(".settlement-readout").first();
        assert.match(
          plain(await readout.innerText()),
          /^00:00–00:15 Berlin schedule [\d.]+ MW day-ahead [\d.]+ MW actual [\d.]+ MW imbalance ([\d.]+ MWh (short|long)|balanced) price [\d.]+ EUR\/MWh cost -?[\d.]+ EUR$/,
        );
        for (let i = 0; i < 9; i++) await page.keyboard.press("ArrowRight");
        // Quarter-hour 9 of the fixture has no actual: dashes, never 0.
        assert.match(
          plain(await readout.innerText()),
          /Berlin schedule [\d.]+ MW day-ahead [\d.]+ MW actual — imbalance — price — cost —$/,
        );
        await page.keyboard.press("End");
        assert.match(plain(await readout.innerText()), /^23:45–00:00 Berlin/);
        assert.equal(await plot.evaluate((el) => el === document.activeElement), true);
        // Keyboard focus alone (the last input was a key) shows the first quarter-hour.
        await page.keyboard.press("Tab");
        const second = page.locator("#days .settlement-chart .chart-plot").nth(1);
        if (!(await second.evaluate((el) => el === document.activeElement))) await second.focus();
        assert.match(
          plain(await page.locator("#days .settlement-readout").nth(1).innerText()),
          /^00:00–00:15 Berlin schedule [\d.]+ MW/,
        );
      },
    );

    await t.step("a day without settlement says so in words", async () => {
      await page.locator(`tr[data-day="${OLDER}"] button.linklike`).first().click();
      await page.getByText("No actuals for this day yet").first().waitFor();
      assert.equal(await page.locator(".after-delivery svg").count(), 0);
      assert.ok(asked.includes(OLDER) && asked.includes(YESTERDAY), asked.join());
    });

    await t.step("today is not after delivery: no settlement asked for it", () => {
      assert.ok(!asked.includes(TODAY), asked.join());
    });

    await t.step("the month: sentence, days × areas, a day opens below", async () => {
      const month = page.locator("#settlement");
      // The month is read when asked for, not with the page.
      assert.equal(await month.locator(".month-table").count(), 0);
      await month.getByRole("button", { name: /^Show \w+ \d{4}$/ }).click();
      await month.locator(".month-table tbody tr").nth(2).waitFor();
      assert.match(
        plain(await month.locator(".settlement-month-sentence").innerText()),
        /^\w+ \d{4} in all 2 areas: 15.6 MWh short, 7.5 MWh long, 2,160.00 EUR; the day-ahead schedule alone: 4,060.00 EUR\. 3 days settled, 1 of them provisional\.$/,
      );
      assert.equal(await month.locator(".month-table thead th").count(), 4);
      await month.locator(".month-table tbody tr").first().locator("button").click();
      await month.locator(".after-delivery").waitFor();
      await shotOf(month, "27-month-1440-light");
    });

    await t.step("dark: the actual line follows the scheme", async () => {
      const view = await openYesterday(page);
      const stroke = () =>
        page.locator("path.settle-act").first().evaluate((el) => getComputedStyle(el).stroke);
      const light = await stroke();
      await page.emulateMedia({ colorScheme: "dark" });
      assert.notEqual(await stroke(), light);
      assert.equal(await stroke(), "rgb(220, 226, 233)");
      await shotOf(view, "27-after-delivery-1440-dark");
    });
    assert.deepEqual(problems.csp, []);
    assert.deepEqual(problems.exceptions, []);
  } finally {
    await b.close();
  }
}

async function phone(t: Deno.TestContext, chromium: Chromium, url: string) {
  const b = await chromium.newPage({
    viewport: { width: 390, height: 844 },
    hasTouch: true,
    locale: "de-DE",
  });
  const page = b.page;
  const problems = await watchProblems(page);
  await stubRoutes(page);
  const s = settlementOf(YESTERDAY);
  try {
    await page.goto(`${url}/console`);
    await enterKey(page);
    await t.step("390 px, de-DE: German numbers, units, a tap reads a quarter-hour", async () => {
      await page.locator(`tr[data-day="${YESTERDAY}"] button.linklike`).first().tap();
      const view = page.locator(`#days .after-delivery[data-day="${YESTERDAY}"]`);
      await view.waitFor();
      const sentence = plain(await view.locator(".settlement-day").innerText());
      const expected = totalsSentence({
        day: YESTERDAY,
        where: "all 2 areas",
        totals: s.totals,
        locale: "de-DE",
        nowMs: NOW,
      });
      assert.ok(sentence.includes(plain(expected)), `${sentence}\n!= ${expected}`);
      assert.match(
        sentence,
        /in all 2 areas: \d+,\d MWh short, \d+,\d MWh long, -?[\d.]+,\d\d EUR/,
      );
      const plot = view.locator(".chart-plot").first();
      await plot.scrollIntoViewIfNeeded();
      const box = (await plot.boundingBox())!;
      await page.touchscreen.tap(box.x + box.width * 0.6, box.y + box.height / 2);
      assert.match(
        plain(await view.locator(".settlement-readout").first().innerText()),
        /^\d\d:\d\d–\d\d:\d\d Berlin schedule \d+,\d MW .* price (\d+,\d\d EUR\/MWh|—) cost (-?\d+,\d\d EUR|—)$/,
      );
      await shotOf(view, "27-after-delivery-390-light");
    });
    await t.step("390 px: nothing wider than the phone, the month as cards", async () => {
      await page.locator("#settlement").getByRole("button", { name: /^Show / }).tap();
      await page.locator("#settlement .month-table tbody tr").nth(2).waitFor();
      // The worst quarter-hours open: their table fits too.
      await page.locator("#days .settlement-worst summary").first().tap();
      await page.locator("#days .worst-table").first().waitFor();
      await view(page);
      const w = await sideways(page);
      assert.equal(w.scroll, false, w.out.join("\n"));
      assert.deepEqual(w.out, []);
      const svgWidth = await page.locator("svg.settlement-svg").first().evaluate((el) =>
        el.getBoundingClientRect().width
      );
      assert.ok(svgWidth <= 390 && svgWidth > 250, `chart ${svgWidth} px wide`);
      await page.emulateMedia({ colorScheme: "dark" });
      assert.equal((await sideways(page)).scroll, false);
      await shotOf(
        page.locator(`#days .after-delivery[data-day="${YESTERDAY}"]`),
        "27-after-delivery-390-dark",
      );
      await shotOf(page.locator("#settlement"), "27-month-390-dark");
    });
    assert.deepEqual(problems.csp, []);
    assert.deepEqual(problems.exceptions, []);
  } finally {
    await b.close();
  }
}

/** Lets the month's cards and the day's charts settle after a resize. */
async function view(page: Page) {
  await page.locator("#settlement").scrollIntoViewIfNeeded();
  await page.waitForTimeout(100);
}

Deno.test({
  name:
    "console e2e: after delivery — sentence, charts, readout by keyboard and tap, month, 390 and 1440 px",
  ignore: skipBrowserTests("console settlement e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  const s = await startServer({ PROCESS_API_KEYS: `ops:${KEY}`, RATE_LIMIT_PER_MINUTE: "0" });
  await using chromium = await launchChromium();
  try {
    await t.step("1440 px, en", (t) => desktop(t, chromium, s.url));
    await t.step("390 px, de-DE, touch", (t) => phone(t, chromium, s.url));
  } finally {
    await s.close();
  }
});
