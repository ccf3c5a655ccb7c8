/**
 * The console the morning after (issue 36, items 5, 7 and 10), in Chromium at 1440 px (`en-GB`,
 * light) and 390 px (`de-DE`, touch, dark), on the real routes of a morning built for real
 * (tests/support/morning_after.ts: four areas, yesterday sent, confirmed, metered and priced,
 * today's first version late, tomorrow confirmed):
 *
 * - 5: yesterday's money in one line on the first screen, its figures the settlement route's; the
 *   link opens the day's quarter-hours near the top of the page (not thousands of pixels down);
 *   the past seven days above the delivery days; the month's hint leads there.
 * - 7: figures with the digits their size needs (no "0.0 MW" for 19 kW), a quarter-hour
 *   "balanced" only at 0, parts that add up to the totals shown (day over areas, the month's
 *   cells over their day), "day-ahead alone" the route's total.
 * - 10: the costliest quarter-hours by EUR, a row shows its quarter-hour in the chart; previous /
 *   next buttons and a finger dragged along the chart; axis labels of at least 12 px; a day column
 *   with room at 1440 px; a missed deadline, "4 of 4", the locked energy and "Due" said once, in
 *   words of today and yesterday.
 *
 * axe-core finds no WCAG 2.1 A/AA violation; no CSP violation, no exception. No request is
 * intercepted. Screenshots with `E2E_SCREENSHOTS=1`. Skipped with a printed reason when Chromium is
 * missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { ensureBundle } from "../../lib/console/bundle.ts";
import type { DaySettlement } from "../../lib/wire/settlement.ts";
import { call } from "../support/app.ts";
import { axeViolations } from "../support/axe.ts";
import {
  type Chromium,
  DESKTOP,
  launchChromium,
  openConsole,
  PHONE,
  shotOf,
  skipBrowserTests,
  touchDrag,
  watchProblems,
} from "../support/chromium.ts";
import { PROC, proc } from "../support/day_ahead_rig.ts";
import { MORNING, type MorningAfter, morningAfter, YESTERDAY } from "../support/morning_after.ts";
import { assertShows, figure, num, plain, shownSum, totalsOf } from "../support/figures.ts";

/**
 * What axe-core checks: the attention box with yesterday's line, the past days, the first area
 * of the day's view (chart, step buttons, readout, the costliest quarter-hours) and the month.
 */
const PARTS = [
  "#attention",
  "#days .past-days",
  "#days .settlement-day",
  "#days .settlement-area:first-of-type",
  "#settlement",
];

async function settlement(m: MorningAfter): Promise<DaySettlement> {
  const r = await call(`${m.r.s.url}/v1/delivery-days/${YESTERDAY}/settlement`, { headers: proc });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as DaySettlement;
}

/** A context at the service's instant, the key entered. */
async function open(chromium: Chromium, m: MorningAfter, opts: Parameters<Chromium["newPage"]>[0]) {
  const b = await chromium.newPage(opts);
  const problems = await watchProblems(b.page);
  await openConsole(b.page, m.r.s.url, PROC, MORNING);
  await b.page.locator(".attention").waitFor();
  return { ...b, problems };
}

/** Item 5: the line on the first screen, the view near the top, the past days, the hint. */
async function yesterday(page: Page, s: DaySettlement, locale: string, tap: boolean) {
  const line = page.locator(".attention-yesterday");
  await line.waitFor();
  const box = (await line.boundingBox())!;
  const height = page.viewportSize()!.height;
  assert.ok(box.y + box.height <= height, `on the first screen: ${JSON.stringify(box)}`);
  const text = plain(await line.innerText());
  assert.match(text, /^Yesterday \(Tue 24 Nov\), imbalance in all 4 areas: /);
  // The money as the route says it, to the cent; the energy read back within its last digit.
  const [short, long, cost, da] = totalsOf(text);
  assert.equal(cost, `${num(s.totals.cost_eur, 2, locale)} EUR`);
  assert.equal(da, `${num(s.totals.day_ahead_cost_eur!, 2, locale)} EUR`);
  assertShows(short, s.totals.short_mwh, locale);
  assertShows(long, s.totals.long_mwh, locale);
  const link = line.getByRole("link", { name: "Yesterday" });
  await (tap ? link.tap() : link.click());
  const view = page.locator("#days .after-delivery .settlement-day");
  await view.waitFor();
  const top = await view.evaluate((el) => ({
    doc: el.getBoundingClientRect().top + scrollY,
    days: document.querySelector("#days")!.getBoundingClientRect().top + scrollY,
    screen: el.getBoundingClientRect().top,
    inner: innerHeight,
  }));
  // Below the delivery days' own rows (what needs attention above them is as long as the day
  // needs), not under the month's tables 8,000 px down.
  assert.ok(
    top.doc - top.days < 600,
    `the day's view starts ${top.doc - top.days} px below the delivery days' top`,
  );
  assert.ok(top.screen >= 0 && top.screen < top.inner, `in view after the link: ${top.screen}`);
  // The past seven days, yesterday first; another one opens in the same place.
  const past = page.locator("#days .past-days li");
  assert.equal(await past.count(), 7);
  assert.equal(plain(await past.first().innerText()), "Tue 24 Nov · yesterday");
  assert.equal(plain(await past.last().innerText()), "Wed 18 Nov");
  assert.equal(await past.first().locator("button").getAttribute("aria-pressed"), "true");
}

/**
 * Yesterday's view, opened by its day's button when no step before opened it (`#day-<date>`: a
 * past day's entry, or a table row where past days were rows), so each item is tested on its own.
 */
async function yesterdayView(page: Page, tap = false) {
  const view = page.locator("#days .after-delivery");
  if (!await view.locator(".settlement-day").isVisible()) {
    const button = page.locator(`#day-${YESTERDAY} button`).first();
    await (tap ? button.tap() : button.click());
  }
  await view.locator(".settlement-day").waitFor();
  return view;
}

/** Item 7 on yesterday's view: digits, balanced only at 0, parts adding up, the route's totals. */
async function numbers(page: Page, s: DaySettlement, locale: string) {
  const view = await yesterdayView(page);
  const day = plain(await view.locator(".settlement-day").innerText());
  const dayFigures = totalsOf(day);
  assert.equal(dayFigures[2], `${num(s.totals.cost_eur, 2, locale)} EUR`);
  assert.equal(dayFigures[3], `${num(s.totals.day_ahead_cost_eur!, 2, locale)} EUR`);
  const areas = view.locator(".settlement-area");
  assert.equal(await areas.count(), 4);
  const areaFigures: string[][] = [];
  for (let k = 0; k < 4; k++) {
    areaFigures.push(totalsOf(await areas.nth(k).locator(".settlement-sentence").innerText()));
    // MAE and bias: never "0.0 MW" for a few kW, the value within its last digit.
    const acc = plain(await areas.nth(k).locator(".settlement-accuracy div").first().innerText());
    const m = /MAE (\S+ \S+) · bias (\S+ \S+) · nMAE/.exec(acc);
    assert.ok(m, acc);
    const api = s.areas[k].accuracy.schedule;
    for (const [shown, v] of [[m[1], api.mae_mw!], [m[2], api.bias_mw!]] as const) {
      assertShows(shown, v, locale);
      assert.ok(figure(shown, locale).value !== 0 || v === 0, `${shown} reads 0 for ${v} MW`);
    }
  }
  // The areas shown add up to the day shown: short, long, cost, day-ahead cost.
  for (let j = 0; j < 4; j++) {
    const parts = areaFigures.map((a) => a[j]);
    const f = figure(dayFigures[j], locale);
    assert.ok(
      Math.abs(shownSum(parts, locale) - f.value) < f.step / 2,
      `${parts.join(" + ")} shown beside ${dayFigures[j]}`,
    );
  }
}

/** Item 7: "balanced" only where the route's imbalance is 0, every quarter-hour of Amprion. */
async function balanced(page: Page, s: DaySettlement) {
  const plot = page.locator("#days .settlement-chart .chart-plot").first();
  await plot.focus();
  await page.keyboard.press("Home");
  // Each quarter-hour in turn by the → key, read after the next frame (in the page: 96 round
  // trips of the test would take seconds).
  const shown = (await plot.evaluate(async (el, n) => {
    const out: string[] = [];
    const part = () =>
      el.closest(".settlement-chart")!.querySelector(
        '.settlement-readout [data-part="imb"] strong',
      );
    for (let i = 0; i < n; i++) {
      if (i) el.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      out.push(part()?.textContent ?? "");
    }
    return out;
  }, s.quarter_hours.length)).map(plain);
  const api = s.areas[0].imbalance_mwh;
  const wrong = shown.flatMap((t, i) =>
    (t === "balanced") !== (api[i] === 0) ? [`${i}: ${t} for ${api[i]}`] : []
  );
  assert.deepEqual(wrong, []);
  assert.ok(api.some((v) => v !== 0 && Math.abs(v!) < 0.005), "a few kWh that once read balanced");
}

/** Item 7 in the month: each day's cells add up to its total shown. */
async function month(page: Page, locale: string) {
  const section = page.locator("#settlement");
  const hint = section.getByRole("link", { name: "a past day in the delivery days" });
  await hint.click();
  assert.equal(await page.evaluate(() => document.activeElement?.id), "past-days");
  await section.getByRole("button", { name: "Show November 2026" }).click();
  const row = section.locator(`.month-table tbody tr[data-day="${YESTERDAY}"]`);
  await row.waitFor();
  const cells = row.locator("td");
  assert.equal(await cells.count(), 5);
  const read = async (i: number) => {
    const c = cells.nth(i);
    const [short, long] = plain(await c.locator(".month-energy").innerText()).split(" · ")
      .map((x) => x.replace(/ (short|long)$/, ""));
    return { cost: plain(await c.locator(".month-cost").innerText()), short, long };
  };
  const parts = await Promise.all([0, 1, 2, 3].map(read));
  const total = await read(4);
  for (const k of ["cost", "short", "long"] as const) {
    const f = figure(total[k], locale);
    const sum = shownSum(parts.map((p) => p[k]), locale);
    assert.ok(
      Math.abs(sum - f.value) < f.step / 2,
      `${k}: ${parts.map((p) => p[k]).join(" + ")} shown beside ${total[k]}`,
    );
  }
}

/** Item 10: the costliest quarter-hours by EUR; a row shows its quarter-hour in the chart. */
async function costliest(page: Page, s: DaySettlement, tap: boolean) {
  await yesterdayView(page, tap);
  const area = page.locator("#days .settlement-area").first();
  const worst = area.locator(".settlement-worst");
  await (tap ? worst.locator("summary").tap() : worst.locator("summary").click());
  await worst.locator("tbody tr").first().waitFor();
  assert.equal(
    plain(await worst.locator("summary").innerText()),
    "The 10 costliest quarter-hours in Amprion",
  );
  const a = s.areas[0];
  const berlin = (iso: string) =>
    Temporal.Instant.from(iso).toZonedDateTimeISO("Europe/Berlin").toPlainTime().toString().slice(
      0,
      5,
    );
  const expected = a.cost_eur.map((c, i) => ({ c, i })).filter((x) => x.c !== null)
    .sort((x, y) => Math.abs(y.c!) - Math.abs(x.c!) || x.i - y.i).slice(0, 10)
    .map((x) => berlin(s.quarter_hours[x.i]));
  const times = await worst.locator("tbody th").allInnerTexts();
  assert.deepEqual(times.map(plain), expected);
  const third = worst.locator("tbody th button").nth(2);
  await (tap ? third.tap() : third.click());
  const readout = area.locator(".settlement-readout");
  await readout.locator(".chart-readout-time").waitFor();
  assert.match(
    plain(await readout.locator(".chart-readout-time").innerText()),
    new RegExp(`^${expected[2]}–`),
  );
  assert.equal(await area.locator(".settlement-chart .cursor rect").count(), 1);
  assert.equal(await third.getAttribute("aria-pressed"), "true");
}

/** Item 10: labels of 12 px and more in every chart. */
async function labels(page: Page) {
  const sizes = await page.locator("svg.chart-svg text").evaluateAll((els) =>
    els.map((e) => parseFloat(getComputedStyle(e).fontSize))
  );
  assert.ok(sizes.length > 10);
  assert.ok(sizes.every((x) => x >= 12), `axis labels of ${Math.min(...sizes)} px`);
}

/** Item 10: today's words — the deadline, "4 of 4" once, the locked energy once, "Due". */
async function words(page: Page) {
  const row = page.locator('tr[data-day="2026-11-25"] th');
  const text = plain(await row.innerText());
  assert.match(
    text,
    /TSO deadline missed — due 14:30 Berlin yesterday, first version sent 09:00 Berlin today/,
  );
  assert.doesNotMatch(text, /Wed 25 Nov.*Wed 25 Nov/, "the date once");
  assert.equal(text.match(/4 of 4/g)?.length, 1, text);
  const due = page.locator('.attention li[data-code="missing_forecasts"][data-day="2026-11-26"]');
  assert.match(plain(await due.innerText()), /Due 14:30 Berlin today\.$/);
  await row.locator("button").first().click();
  const locked = page.locator("#days .locked-deviation");
  await locked.waitFor();
  const l = plain(await locked.innerText());
  assert.equal(l.match(/can no longer be scheduled away/gi)?.length, 1, l);
  for (const name of ["Amprion", "TenneT TSO", "TransnetBW", "50Hertz"]) {
    assert.ok(l.includes(name), l);
  }
}

async function desktop(t: Deno.TestContext, chromium: Chromium, m: MorningAfter) {
  const b = await open(chromium, m, DESKTOP);
  const page = b.page;
  const s = await settlement(m);
  try {
    await t.step("5: yesterday's money on the first screen, its view near the top", async () => {
      await shotOf(page, "36-morning-1440-first");
      await yesterday(page, s, "en-GB", false);
    });
    await t.step("7: digits by size, balanced only at 0, parts add up", async () => {
      await numbers(page, s, "en-GB");
      await balanced(page, s);
    });
    await t.step("10: the costliest quarter-hours by EUR select one in the chart", async () => {
      await costliest(page, s, false);
      await shotOf(page.locator("#days .settlement-area").first(), "36-costliest-1440-light");
      await labels(page);
    });
    await t.step("10: a day column with room, today's words", async () => {
      const th = page.locator('tr[data-day="2026-11-25"] th');
      const w = await th.evaluate((el) => el.getBoundingClientRect().width);
      assert.ok(w >= 300, `day column ${w} px`);
      const summary = th.locator(".tso-summary");
      const lines = await summary.evaluate((el) =>
        el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight)
      );
      assert.ok(lines <= 2.2, `today's TSO summary on ${lines} lines`);
      await words(page);
      await shotOf(page.locator("#days"), "36-days-1440-light");
    });
    await t.step("7: the month's cells add up to their day", () => month(page, "en-GB"));
    await t.step("axe-core: no WCAG 2.1 A/AA violation in the new parts", async () => {
      assert.deepEqual(await axeViolations(page, PARTS), []);
    });
    assert.deepEqual(b.problems.csp, []);
    assert.deepEqual(b.problems.exceptions, []);
  } finally {
    await b.close();
  }
}

async function phone(t: Deno.TestContext, chromium: Chromium, m: MorningAfter) {
  const b = await open(chromium, m, PHONE);
  const page = b.page;
  const s = await settlement(m);
  try {
    await t.step("5: the line on a phone's first screen, the view not far down", async () => {
      await shotOf(page, "36-morning-390-first");
      await yesterday(page, s, "de-DE", true);
      await shotOf(page, "36-yesterday-390-dark");
    });
    await t.step("7: German figures that add up", () => numbers(page, s, "de-DE"));
    await t.step("10: previous / next quarter-hour and a drag read the chart", async () => {
      await yesterdayView(page, true);
      const area = page.locator("#days .settlement-area").first();
      const next = area.getByRole("button", { name: `Next quarter-hour of Amprion ${YESTERDAY}` });
      const prev = area.getByRole("button", {
        name: `Previous quarter-hour of Amprion ${YESTERDAY}`,
      });
      const size = (await next.boundingBox())!;
      assert.ok(
        size.height >= 44 && size.width >= 44,
        `a finger's target: ${JSON.stringify(size)}`,
      );
      const time = area.locator(".settlement-readout .chart-readout-time");
      await next.tap();
      assert.equal(plain(await time.innerText()), "00:00–00:15 Berlin");
      await next.tap();
      assert.equal(plain(await time.innerText()), "00:15–00:30 Berlin");
      await prev.tap();
      assert.equal(plain(await time.innerText()), "00:00–00:15 Berlin");
      // A quarter-hour is about 3 px wide: a finger slides from 30 % to 60 % of the plot.
      const plot = area.locator(".chart-plot");
      await plot.scrollIntoViewIfNeeded();
      await touchDrag(page, plot, 0.3, 0.6);
      const svg = (await plot.locator("svg").boundingBox())!;
      const x = svg.width * 0.6;
      const i = Math.min(95, Math.floor(((x - 56) / (svg.width - 56 - 12)) * 96));
      const hm = (k: number) =>
        `${String(Math.floor(k / 4)).padStart(2, "0")}:${String((k % 4) * 15).padStart(2, "0")}`;
      assert.equal(plain(await time.innerText()), `${hm(i)}–${hm(i + 1)} Berlin`);
      // The buttons go on from the quarter-hour the finger left.
      await next.tap();
      assert.equal(plain(await time.innerText()), `${hm(i + 1)}–${hm(i + 2)} Berlin`);
      await shotOf(area, "36-readout-390-dark");
    });
    await t.step("10: the costliest quarter-hours by EUR, a tap selects one", async () => {
      await costliest(page, s, true);
      await labels(page);
    });
    await t.step("nothing wider than the phone; axe-core: no violation (dark)", async () => {
      const wide = await page.evaluate(() =>
        document.documentElement.scrollWidth > document.documentElement.clientWidth
      );
      assert.equal(wide, false);
      assert.deepEqual(await axeViolations(page, PARTS), []);
    });
    assert.deepEqual(b.problems.csp, []);
    assert.deepEqual(b.problems.exceptions, []);
  } finally {
    await b.close();
  }
}

Deno.test({
  name:
    "console e2e: the morning after — yesterday from the first screen, figures by size, the costliest quarter-hours (390/1440 px)",
  ignore: skipBrowserTests("console morning-after e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  const m = await morningAfter();
  await using chromium = await launchChromium();
  try {
    await t.step("1440 px, en-GB, light", (t) => desktop(t, chromium, m));
    await t.step("390 px, de-DE, touch, dark", (t) => phone(t, chromium, m));
  } finally {
    await m.close();
  }
});
