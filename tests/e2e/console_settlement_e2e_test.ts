/**
 * The console's after-delivery view in a real browser against the real settlement routes
 * (docs/console_after_delivery.md; docs/settlement.md; issue 27, item 4). On a fake clock the
 * walk builds a delivery day for real (docs/intraday.md): a market location in Amprion, a
 * day-ahead version two days before, two intraday versions, the TSO simulator's answers; the
 * next morning metered quarter-hours arrive by `POST /v1/actuals` (CSV, all but the last one) and
 * the day's reBAP prices by `POST /v1/imbalance-prices`. Then an operator opens the console with
 * the process key, the browser's clock at the service's instant:
 *
 * - 1440 px, `en-GB`: selecting yesterday's row shows the totals sentence with the numbers
 *   `GET /v1/delivery-days/{day}/settlement` returns, completeness, the costliest quarter-hours, the
 *   readout of a quarter-hour on keyboard focus and the arrow keys ("—" where no actual is
 *   known); the day before (schedules, nothing measured) says "No actuals … yet", never 0 EUR;
 *   the month from `GET /v1/settlement/months/{YYYY-MM}`; the last quarter-hour's actual posted
 *   while the view is open turns the sentence `final` with the new numbers (live event
 *   `actuals_received`), without a reload.
 * - 390 px, touch, `de-DE`: German numbers with units, a tap reads a quarter-hour, nothing wider
 *   than the phone, the month as cards.
 *
 * No request is intercepted: the app on 127.0.0.1 with a temp-file KV, the TSO simulator,
 * Debian's Chromium. Screenshots with `E2E_SCREENSHOTS=1`. Skipped with a printed reason when
 * Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { ensureBundle } from "../../lib/console/bundle.ts";
import { addDays, deliveryDay } from "../../lib/domain/delivery_day.ts";
import type { DaySettlement, MonthSettlement } from "../../lib/wire/settlement.ts";
import { rebapFile } from "../../dev/metering_simulator.ts";
import { call } from "../support/app.ts";
import {
  type Chromium,
  launchChromium,
  shotOf,
  skipBrowserTests,
  watchProblems,
} from "../support/chromium.ts";
import { ext, PROC, proc } from "../support/day_ahead_rig.ts";
import { startWalk, type Walk } from "../support/intraday_walk.ts";
import { maloId } from "../support/portfolio.ts";
import { energyText, num, plain } from "../support/figures.ts";

const DAY = "2026-11-17"; // Tue, CET; the browser's "yesterday" (the clock: 18 Nov 10:00 Berlin)
const BEFORE = addDays(DAY, -1); // schedules sent, nothing measured
const MONTH = "November 2026";

/** kWh metered in quarter-hour `i`: 500, 600, … 1,200, again (2.0 … 4.8 MW). */
const kwhAt = (i: number) => 500 + (i % 8) * 100;

/**
 * The totals of one area as the operator must read them (docs/console.md, "Numbers"): "3.20 MWh
 * short, 110 kWh long, 412.50 EUR; …" — energy with three significant digits, money in cents.
 */
function totalsText(t: DaySettlement["totals"], locale: string): string {
  const money = (v: number) => `${num(v, 2, locale)} EUR${v < 0 ? " (received)" : ""}`;
  return `${energyText(t.short_mwh, locale)} short, ${energyText(t.long_mwh, locale)} long, ${
    money(t.cost_eur)
  }; the day-ahead schedule alone: ${money(t.day_ahead_cost_eur!)}`;
}

/** The walk: day-ahead 1 MW, intraday 2 MW, then 3 MW from 09:30 on the day (as the settlement walk). */
async function buildDay(w: Walk) {
  await w.forecast(1_000);
  await w.pass();
  w.at(-1, "16:00");
  await w.forecast(2_000);
  await w.pass();
  w.at(-1, "18:00");
  await w.answers();
  w.at(0, "09:07");
  await w.forecast(3_000);
  await w.pass();
  assert.deepEqual((await w.history()).map((v) => v.phase), ["day_ahead", "intraday", "intraday"]);
}

/** CSV of the day's metered quarter-hours of location 1, the first `n`. */
const actualsCsv = (n: number) =>
  ["market_location_id,start,kwh"].concat(
    deliveryDay(DAY).quarterHours.slice(0, n).map((q, i) =>
      `${maloId(1)},${q.toString()},${kwhAt(i)}`
    ),
  ).join("\n");

async function post(w: Walk, path: string, headers: Record<string, string>, body: string) {
  const r = await call(`${w.r.s.url}${path}`, { method: "POST", headers, body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

async function read<T>(w: Walk, path: string): Promise<T> {
  const r = await call(`${w.r.s.url}${path}`, { headers: proc });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as T;
}
const settlement = (w: Walk) => read<DaySettlement>(w, `/v1/delivery-days/${DAY}/settlement`);

/** A context at the service's instant, the key entered. */
async function open(chromium: Chromium, w: Walk, opts: Parameters<Chromium["newPage"]>[0]) {
  const b = await chromium.newPage(opts);
  const problems = await watchProblems(b.page);
  await b.page.clock.setFixedTime(new Date(w.r.clock.now()));
  await b.page.goto(`${w.r.s.url}/console`);
  await b.page.waitForSelector("html[data-ready=true]");
  await b.page.fill("#process-key", PROC);
  await b.page.press("#process-key", "Enter");
  return { ...b, problems };
}

/** Opens a past day from the past days above the delivery days (components/PastDays.tsx). */
async function openDay(page: Page, day: string, tap = false) {
  const button = page.locator(`#days .past-days li[data-day="${day}"] button`);
  await (tap ? button.tap() : button.click());
  const view = page.locator(`#days .after-delivery`);
  await view.waitFor();
  return view;
}

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

async function desktop(t: Deno.TestContext, chromium: Chromium, w: Walk) {
  const b = await open(chromium, w, { viewport: { width: 1440, height: 1000 }, locale: "en-GB" });
  const page = b.page;
  const s = await settlement(w);
  const a = s.areas[0];
  try {
    await t.step(
      "yesterday: the totals sentence with the route's numbers, completeness",
      async () => {
        const view = await openDay(page, DAY);
        await view.locator(".settlement-day").waitFor();
        assert.equal(s.status, "provisional");
        assert.equal(
          plain(await view.locator(".settlement-day").innerText()).split(" 96 quarter-hours")[0],
          `provisional Yesterday in Amprion: ${totalsText(s.totals, "en-GB")}.`,
        );
        assert.equal(await view.locator("svg.settlement-svg path.settle-act").count(), 1);
        // A location is metered only with every quarter-hour: 95 of 96 leave it "missing".
        const c = a.completeness;
        assert.deepEqual([c.metered, c.profile_settled, c.missing], [0, 0, 1]);
        assert.equal(
          plain(await view.locator(".settlement-completeness").innerText()),
          "provisional 0 metered · 0 profile-settled · 1 missing market location · 96 of 96 " +
            "quarter-hours priced · actual in 95 of 96 quarter-hours · provisional: 1 market " +
            "location without complete actuals; the numbers can still change",
        );
        assert.equal(c.priced_quarter_hours, 96);
        const worst = view.locator(".settlement-worst");
        await worst.locator("summary").click();
        assert.match(
          plain(await worst.locator("summary").innerText()),
          /^The 10 costliest quarter-hours in Amprion$/,
        );
        const rows = worst.locator(".worst-table tbody tr");
        assert.equal(await rows.count(), 10);
        // The costliest by EUR (issue 36, item 10), from the route's quarter-hours.
        const i0 = a.cost_eur.reduce<number>(
          (best, c, i) => c !== null && Math.abs(c) > Math.abs(a.cost_eur[best] ?? 0) ? i : best,
          0,
        );
        const hm = Temporal.Instant.from(s.quarter_hours[i0]).toZonedDateTimeISO("Europe/Berlin")
          .toPlainTime().toString().slice(0, 5);
        const imb = a.imbalance_mwh[i0]!;
        assert.equal(
          plain(await rows.first().innerText()).replace(/\t/g, " "),
          `${hm} ${energyText(Math.abs(imb), "en-GB")} ${imb > 0 ? "short" : "long"} ${
            num(a.price_eur_mwh[i0]!, 2, "en-GB")
          } EUR/MWh ${num(a.cost_eur[i0]!, 2, "en-GB")} EUR`,
        );
        await shotOf(view, "27-after-delivery-1440-light");
      },
    );

    await t.step("keyboard: focus the chart, Home, End, ←: the readout", async () => {
      const plot = page.locator("#days .settlement-chart .chart-plot").first();
      await plot.focus();
      await page.keyboard.press("Home");
      const readout = page.locator("#days .settlement-readout").first();
      const en = (v: number, d: number) => num(v, d, "en-GB");
      // 00:00: 500 kWh = 2.00 MW against the 2 MW schedule: exactly balanced.
      assert.equal(a.imbalance_mwh[0], 0);
      assert.equal(
        plain(await readout.innerText()),
        `00:00–00:15 Berlin schedule 2.00 MW day-ahead 1.00 MW actual 2.00 MW imbalance balanced price ${
          en(a.price_eur_mwh[0]!, 2)
        } EUR/MWh cost 0.00 EUR`,
      );
      await page.keyboard.press("End");
      assert.equal(
        plain(await readout.innerText()),
        // No actual: no direction, so no price of it (docs/settlement.md) — dashes, never 0.
        "23:45–00:00 Berlin schedule 3.00 MW day-ahead 1.00 MW actual — imbalance — price — cost —",
      );
      await page.keyboard.press("ArrowLeft");
      assert.equal(
        plain(await readout.innerText()),
        `23:30–23:45 Berlin schedule 3.00 MW day-ahead 1.00 MW actual 4.40 MW imbalance 350 kWh short price ${
          en(a.price_eur_mwh[94]!, 2)
        } EUR/MWh cost ${en(a.cost_eur[94]!, 2)} EUR`,
      );
      assert.equal(await plot.evaluate((el) => el === document.activeElement), true);
      await shotOf(
        page.locator("#days .settlement-area").first(),
        "27-after-delivery-1440-readout",
      );
    });

    await t.step(
      "the day before: schedules, nothing measured — said in words, no 0 EUR",
      async () => {
        const view = await openDay(page, BEFORE);
        await view.getByText("No actuals for this day yet").waitFor();
        assert.equal(await view.locator("svg").count(), 0);
        assert.doesNotMatch(plain(await view.innerText()), /0\.00 EUR/);
      },
    );

    await t.step("the month: the route's totals, the days, a day opens below", async () => {
      const m = await read<MonthSettlement>(w, `/v1/settlement/months/2026-11`);
      const month = page.locator("#settlement");
      await month.getByRole("button", { name: `Show ${MONTH}` }).click();
      const sentence = month.locator(".settlement-month-sentence");
      await sentence.waitFor();
      assert.equal(
        plain(await sentence.innerText()),
        `${MONTH} in Amprion: ${totalsText(m.totals, "en-GB")}. 1 day settled, 1 of them ` +
          "provisional; 1 day without actuals yet.",
      );
      // The route lists only days whose delivery has ended (today's and tomorrow's sent schedules
      // are no cells); the day with nothing measured says so, not 0.00 EUR.
      assert.ok(m.cells.every((c) => c.delivery_day <= DAY), JSON.stringify(m.cells));
      assert.ok(m.cells.some((c) => c.delivery_day === BEFORE), JSON.stringify(m.cells));
      const rows = month.locator(".month-table tbody tr");
      assert.deepEqual(await rows.evaluateAll((t) => t.map((r) => r.dataset.day)), [BEFORE, DAY]);
      assert.equal(
        plain(await rows.first().innerText()),
        "Mon 16 Nov no actuals yet no actuals yet",
      );
      const cell = a.totals;
      assert.equal(
        plain(await rows.nth(1).innerText()).split(" provisional")[0],
        `Tue 17 Nov ${num(cell.cost_eur, 2, "en-GB")} EUR ${energyText(cell.short_mwh, "en-GB")} ` +
          `short · ${energyText(cell.long_mwh, "en-GB")} long`,
      );
      const row = rows.nth(1);
      await row.locator("button").click();
      await month.locator(".after-delivery .settlement-day").waitFor();
      await shotOf(month, "27-month-1440-light");
    });

    await t.step(
      "the last quarter-hour arrives while the view is open: final, new numbers",
      async () => {
        const view = await openDay(page, DAY);
        await view.locator(".settlement-day").waitFor();
        await post(w, "/v1/actuals", { ...ext, "content-type": "text/csv" }, actualsCsv(96));
        const after = await settlement(w);
        assert.equal(after.status, "final");
        assert.notEqual(after.totals.cost_eur, s.totals.cost_eur);
        const expected = `final Yesterday in Amprion: ${totalsText(after.totals, "en-GB")}.`;
        await page.waitForFunction(
          (want) =>
            (document.querySelector("#days .settlement-day")?.textContent ?? "")
              .replace(/\u00a0/g, " ").replace(/\s+/g, " ").trim().startsWith(want),
          expected,
          { timeout: 10_000 },
        );
      },
    );
    await t.step("dark: the actual line follows the scheme", async () => {
      const stroke = () =>
        page.locator("#days path.settle-act").first().evaluate((el) => getComputedStyle(el).stroke);
      const light = await stroke();
      await page.emulateMedia({ colorScheme: "dark" });
      assert.notEqual(await stroke(), light);
      assert.equal(await stroke(), "rgb(220, 226, 233)");
      await shotOf(page.locator("#days .after-delivery"), "27-after-delivery-1440-dark");
    });
    assert.deepEqual(b.problems.csp, []);
    assert.deepEqual(b.problems.exceptions, []);
  } finally {
    await b.close();
  }
}

async function phone(t: Deno.TestContext, chromium: Chromium, w: Walk) {
  const b = await open(chromium, w, {
    viewport: { width: 390, height: 844 },
    hasTouch: true,
    locale: "de-DE",
  });
  const page = b.page;
  const s = await settlement(w);
  try {
    await t.step("390 px, de-DE: German numbers, units, a tap reads a quarter-hour", async () => {
      const view = await openDay(page, DAY, true);
      await view.locator(".settlement-day").waitFor();
      assert.equal(
        plain(await view.locator(".settlement-day").innerText()).split(" 96 quarter-hours")[0],
        `final Yesterday in Amprion: ${totalsText(s.totals, "de-DE")}.`,
      );
      assert.match(plain(await view.locator(".settlement-day").innerText()), /\d+,\d+ MWh short/);
      const plot = view.locator(".chart-plot").first();
      await plot.scrollIntoViewIfNeeded();
      const box = (await plot.boundingBox())!;
      await page.touchscreen.tap(box.x + box.width * 0.6, box.y + box.height / 2);
      assert.match(
        plain(await view.locator(".settlement-readout").first().innerText()),
        /^\d\d:\d\d–\d\d:\d\d Berlin schedule \d,\d\d MW day-ahead 1,00 MW actual \d,\d\d MW imbalance ([\d,]+ k?Wh short|balanced) price -?[\d.]+,\d\d EUR\/MWh cost -?[\d.,]+ (EUR|ct)$/,
      );
      await shotOf(view, "27-after-delivery-390-light");
    });
    await t.step("390 px: nothing wider than the phone, the month as cards", async () => {
      await page.locator("#settlement").getByRole("button", { name: `Show ${MONTH}` }).tap();
      await page.locator(`#settlement .month-table tbody tr[data-day="${DAY}"]`).waitFor();
      await page.locator("#days .settlement-worst summary").first().tap();
      await page.locator("#days .worst-table").first().waitFor();
      const w = await sideways(page);
      assert.equal(w.scroll, false, w.out.join("\n"));
      assert.deepEqual(w.out, []);
      const svgWidth = await page.locator("svg.settlement-svg").first().evaluate((el) =>
        el.getBoundingClientRect().width
      );
      assert.ok(svgWidth <= 390 && svgWidth > 250, `chart ${svgWidth} px wide`);
      await shotOf(page.locator("#settlement"), "27-month-390-light");
    });
    assert.deepEqual(b.problems.csp, []);
    assert.deepEqual(b.problems.exceptions, []);
  } finally {
    await b.close();
  }
}

Deno.test({
  name:
    "console e2e: after delivery on the real routes — a walked day, actuals and prices posted, 1440 and 390 px, a live update",
  ignore: skipBrowserTests("console settlement e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  const w = await startWalk(DAY);
  await using chromium = await launchChromium();
  try {
    await t.step(
      "the day walked; the next morning actuals (but the last) and prices arrive",
      async () => {
        await buildDay(w);
        w.at(1, "10:00");
        await post(w, "/v1/actuals", { ...ext, "content-type": "text/csv" }, actualsCsv(95));
        await post(
          w,
          "/v1/imbalance-prices",
          { ...proc, "content-type": "text/csv" },
          rebapFile(DAY),
        );
      },
    );
    await t.step("1440 px, en-GB", (t) => desktop(t, chromium, w));
    await t.step("390 px, de-DE, touch", (t) => phone(t, chromium, w));
  } finally {
    await w.close();
  }
});
