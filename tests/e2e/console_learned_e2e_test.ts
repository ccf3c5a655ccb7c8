/**
 * The console's "Learned forecasts" (issue 33, item 6) in Chromium at 1440 px (`en-GB`, light)
 * and 390 px (`de-DE`, touch, dark), on a service whose metered locations read the real OpenSTEF
 * history (tests/support/learned_console.ts): one forecast by its learned model, one by the
 * labelled fallback "load 7 days before" (10 of 14 days of actuals), one without a forecast (3 of
 * 14: the attention item and its row), one by its customer's forecast, corrected.
 *
 * - Reached by the section link (clicked, tapped, and by the keyboard: focus and Enter).
 * - Each row: MaLo-ID and name, the method's words, the reason, the last 28 days' MAE beside the
 *   "7 days before" baseline with ratio and days, the customer's MAE — each figure read back and
 *   held against `GET /v1/console/forecast-models`, the ratio recomputed from the shown figures'
 *   sources; the summary's counts against the route's and against the rows' badges.
 * - After delivery (yesterday): "where the deviation came from" — learned (with its fallback),
 *   corrected, profile H0, none — each energy, share and saving ("… less imbalance than the load 7
 *   days before (… EUR at reBAP)") against `GET /v1/delivery-days/{day}/settlement`.
 * - axe-core: no WCAG 2.1 A/AA violation in the section and the sources; no CSP violation, no
 *   exception, no console error, no failed request; nothing wider than the phone.
 *
 * Skipped with a printed reason when Chromium is missing, unless REQUIRE_E2E=1.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { ensureBundle } from "../../lib/console/bundle.ts";
import type { ForecastModelPage, ForecastModelRow } from "../../lib/wire/forecast_models.ts";
import type { DaySettlement } from "../../lib/wire/settlement.ts";
import { call } from "../support/app.ts";
import { axeViolations } from "../support/axe.ts";
import {
  type Chromium,
  DESKTOP,
  launchChromium,
  openConsole,
  type PageOptions,
  PHONE,
  shotOf,
  skipBrowserTests,
  watchProblems,
} from "../support/chromium.ts";
import { assertShows, figure, num, plain } from "../support/figures.ts";
import { PROC } from "../support/keys.ts";
import {
  CORRECTED,
  LEARNED,
  type LearnedConsole,
  learnedConsole,
  NOW,
  proc,
  TEN,
  THREE,
  YESTERDAY,
} from "../support/learned_console.ts";

/** The methods as an operator reads them (docs/console.md, "Learned forecasts"). */
const WORDS: Record<string, string> = {
  learned: "learned",
  load_7_days_before: "load 7 days before",
  none: "no forecast",
  customer_corrected: "customer forecast, corrected",
};

async function get<T>(c: LearnedConsole, path: string): Promise<T> {
  const r = await call(`${c.s.url}${path}`, { headers: proc });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as T;
}

/** A page at the service's instant with the key entered, its problems and failed requests. */
async function open(chromium: Chromium, c: LearnedConsole, opts: PageOptions) {
  const b = await chromium.newPage(opts);
  const problems = await watchProblems(b.page);
  const failed: string[] = [];
  b.page.on("requestfailed", (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));
  b.page.on("response", (r) => {
    if (r.status() >= 400) failed.push(`${r.url()}: ${r.status()}`);
  });
  await openConsole(b.page, c.s.url, PROC, NOW);
  return { ...b, problems, failed };
}

/**
 * The section by its link once the page has loaded (what needs attention and the delivery days
 * shown): tapped, clicked, or focused and Enter; then in view.
 */
async function reach(page: Page, how: "click" | "tap" | "keyboard") {
  await page.locator(".attention li").first().waitFor();
  await page.locator("#days .past-days").waitFor();
  const link = page.locator('nav.sections a[href="#learned"]');
  if (how === "keyboard") {
    // From the top of the page, Tab by Tab to the link (skip links, the other sections' links).
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    let tabs = 0;
    while (!await link.evaluate((el) => el === document.activeElement)) {
      assert.ok(++tabs <= 12, "the section link within 12 Tabs of the top");
      await page.keyboard.press("Tab");
    }
    await page.keyboard.press("Enter");
  } else await (how === "tap" ? link.tap() : link.click());
  await page.waitForFunction(() => location.hash === "#learned");
  const section = page.locator("#learned");
  await section.locator(".learned-table tbody tr").first().waitFor();
  // At the top of the screen, or (the last section) the page at its end and all of it in view.
  const at = await section.evaluate((el) => ({
    top: el.getBoundingClientRect().top,
    bottom: el.getBoundingClientRect().bottom,
    end: scrollY + innerHeight >= document.documentElement.scrollHeight - 1,
    inner: innerHeight,
  }));
  assert.ok(
    at.top >= 0 && (at.top < 200 || (at.end && at.bottom <= at.inner)),
    `the section starts ${at.top} px below the top of the screen: ${JSON.stringify(at)}`,
  );
  return section;
}

/** "3.90 MW vs 4.35 MW 7 days before (0.74×, 27 days)" in its parts. */
function errorParts(text: string) {
  const m = /^(\S+ k?W|\S+ MW) vs (\S+ k?W|\S+ MW) 7 days before \((\S+)×, (\d+) days?\)$/.exec(
    text,
  );
  assert.ok(m, `not an error beside the baseline: ${text}`);
  return { model: m[1], week: m[2], ratio: m[3], days: Number(m[4]) };
}

/** A figure with three significant digits at least (docs/console.md, "Numbers"). */
function threeDigits(text: string, locale: string) {
  const f = figure(text, locale);
  assert.ok(f.value > 0 && f.step <= f.value / 99, `${text}: too few digits for its size`);
}

/** Every row and the summary against the route; the ratio from the route's values. */
async function rows(page: Page, models: ForecastModelPage, locale: string) {
  const section = page.locator("#learned");
  assert.equal(await section.locator(".learned-table tbody tr").count(), 4);
  const byMethod = models.summary!.by_method;
  const summary = plain(await section.locator(".learned-summary").innerText());
  assert.match(
    summary,
    /^4 metered locations · for Thu 26 Nov: (\d [a-z ,0-9]+)(, \d [a-z ,0-9]+)* · made 10:00/,
  );
  for (const [m, n] of Object.entries(byMethod)) {
    assert.ok(summary.includes(`${n} ${WORDS[m]}`), `${n} ${WORDS[m]} in "${summary}"`);
    // The badges of the rows count the same.
    const badges = await section.locator(".learned-table tbody .badge").allInnerTexts();
    assert.equal(badges.map(plain).filter((b) => b === WORDS[m]).length, n, m);
  }
  for (const r of models.forecast_models) await row(page, r, locale);
  // Words read from the left: each badge at the start of its cell.
  const offsets = await section.locator(".learned-table tbody td:nth-child(2)").evaluateAll((tds) =>
    tds.map((td) =>
      td.querySelector(".badge")!.getBoundingClientRect().left - td.getBoundingClientRect().left
    )
  );
  assert.ok(offsets.every((x) => x < 16), `badges ${offsets.join(", ")} px into their cells`);
}

/** On a phone each row is a card: every cell says what it is; the caption as wide as the cards. */
async function cards(page: Page) {
  const labels = await page.locator("#learned tbody tr").first().locator("td").evaluateAll((tds) =>
    tds.map((td) => getComputedStyle(td, "::before").content)
  );
  assert.deepEqual(labels, ['"Next day-ahead day"', '"Last 28 days"', '"Customer forecast"']);
  const caption = await page.locator("#learned caption").evaluate((el) =>
    el.getBoundingClientRect().width
  );
  assert.ok(caption > 300, `the caption is ${caption} px wide`);
}

async function row(page: Page, r: ForecastModelRow, locale: string) {
  const tr = page.locator(`#learned tr[data-malo="${r.market_location_id}"]`);
  const [who, method, last28, customer] = (await tr.locator("th, td").allInnerTexts()).map(plain);
  assert.equal(who, `${r.market_location_id} ${r.name}`);
  assert.equal(method, `${WORDS[r.method]} ${r.reason}`);
  const l = r.last_28_days;
  if (!l.model) assert.equal(last28, "not judged yet");
  else {
    const e = errorParts(last28);
    assertShows(e.model, l.model.mae_kw / 1000, locale);
    assertShows(e.week, l.week_before!.mae_kw / 1000, locale);
    assert.equal(e.days, l.model.days);
    assert.equal(e.ratio, num(l.model.mae_kw / l.week_before!.mae_kw, 2, locale));
    // The digits a figure's size needs: never "0.07 MW" for 65.5 kW.
    threeDigits(e.model, locale);
    threeDigits(e.week, locale);
  }
  const [own, verdict] = customer.split(" · ");
  if (!l.customer) assert.equal(own, "—");
  else {
    assertShows(own, l.customer.mae_kw / 1000, locale);
    threeDigits(own, locale);
  }
  // A corrected customer forecast says its verdict beside: corrected vs as sent, used or not.
  const c = r.correction;
  if (!c) assert.equal(verdict, undefined);
  else {
    const m = verdict?.match(
      /^over (\d+) days? judged: corrected (.+) vs (.+) as sent \((used|not used: no better)\)$/,
    );
    assert.ok(m, `the correction's verdict: ${verdict}`);
    assert.equal(Number(m[1]), c.days);
    assertShows(m[2], c.corrected_mae_kw / 1000, locale);
    assertShows(m[3], c.customer_mae_kw / 1000, locale);
    assert.equal(m[4], c.used ? "used" : "not used: no better");
  }
}

/** The attention list names the location without a forecast, and the fallback. */
async function attention(page: Page) {
  const none = page.locator(`.attention li[data-code="no_forecast"]`);
  assert.equal(await none.count(), 1);
  assert.match(
    plain(await none.innerText()),
    new RegExp(
      `No forecast for ${THREE} \\(New site\\) for tomorrow \\(Thu 26 Nov\\): 3 of 14 days of actuals, and no load of the same weekday`,
    ),
  );
  const fallback = page.locator(`.attention li[data-code="forecast_fallback"]`);
  assert.match(
    plain(await fallback.innerText()),
    new RegExp(
      `The forecast falls back to the load of 7 days before for ${TEN} \\(Depot\\) for tomorrow \\(Thu 26 Nov\\): 10 of 14 days of actuals`,
    ),
  );
}

/** How a source is named (docs/console_after_delivery.md). */
const SOURCE: Record<string, string> = {
  learned: "learned forecasts",
  customer_corrected: "corrected customer forecasts",
  H0: "profile H0",
  none: "metered without a forecast",
};

/** Yesterday's sources: every figure against the settlement route. */
async function sources(page: Page, s: DaySettlement, locale: string, tap: boolean) {
  const button = page.locator(`#day-${YESTERDAY} button`);
  await (tap ? button.tap() : button.click());
  const list = page.locator("#days .settlement-sources li");
  await list.first().waitFor();
  const shown = (await list.allInnerTexts()).map(plain);
  const api = [...s.areas[0].accuracy.by_source].sort((a, b) =>
    b.abs_deviation_mwh! - a.abs_deviation_mwh!
  );
  assert.deepEqual(shown.map((l) => l.split(":")[0]), api.map((x) => SOURCE[x.source]));
  const total = api.reduce((sum, x) => sum + x.abs_deviation_mwh!, 0);
  shown.forEach((line, i) => source(line, api[i], total, locale));
  const learned = shown.find((l) => l.startsWith("learned"))!;
  assert.match(learned, / over 2 locations, /, "the fallback counts as learned");
  return shown;
}

function source(line: string, x: DeviationSource, total: number, locale: string) {
  const m =
    /^[^:]+: (\S+ k?Wh|\S+ MWh) \((\S+) %\) over (\d+) locations?, mean (\S+ k?W|\S+ MW)(?:; (\S+ k?Wh|\S+ MWh) (less|more) imbalance than (the load 7 days before|the customer's own forecast) \((\S+ EUR) at reBAP\))?$/
      .exec(line);
  assert.ok(m, line);
  assertShows(m[1], x.abs_deviation_mwh!, locale);
  const share = figure(`${m[2]} MW`, locale);
  assert.ok(Math.abs(share.value - x.abs_deviation_mwh! / total * 100) <= share.step / 2, line);
  assert.equal(Number(m[3]), x.locations);
  assertShows(m[4], x.mad_mw!, locale);
  assert.equal(m[5] !== undefined, x.saved !== undefined, `a saving only for learned: ${line}`);
  if (!x.saved) return;
  assertShows(m[5], Math.abs(x.saved.mwh), locale);
  assert.equal(m[6], x.saved.mwh < 0 ? "more" : "less");
  assert.equal(
    m[7],
    x.saved.replaced === "customer" ? "the customer's own forecast" : "the load 7 days before",
  );
  assert.equal(m[8], `${num(Math.abs(x.saved.eur!), 2, locale)} EUR`);
}

/** Axe, problems, failed requests. */
async function clean(b: Awaited<ReturnType<typeof open>>) {
  assert.deepEqual(await axeViolations(b.page, ["#learned", "#days .settlement-sources"]), []);
  assert.deepEqual(b.problems.csp, []);
  assert.deepEqual(b.problems.exceptions, []);
  assert.deepEqual(b.problems.console, []);
  assert.deepEqual(b.failed, []);
}

async function desktop(t: Deno.TestContext, chromium: Chromium, c: LearnedConsole, data: Data) {
  const b = await open(chromium, c, DESKTOP);
  try {
    await t.step("the section link, clicked; every row and figure", async () => {
      await reach(b.page, "click");
      await rows(b.page, data.models, "en-GB");
      await shotOf(b.page.locator("#learned"), "33-learned-1440-light");
    });
    await t.step("the section by the keyboard", async () => {
      await b.page.evaluate(() => scrollTo(0, 0));
      await reach(b.page, "keyboard");
    });
    await t.step("attention: no forecast, the fallback", () => attention(b.page));
    await t.step("after delivery: where the deviation came from", async () => {
      await sources(b.page, data.settlement, "en-GB", false);
      await shotOf(b.page.locator("#days .settlement-sources"), "33-sources-1440-light");
    });
    await t.step("axe-core, CSP, exceptions, requests", () => clean(b));
  } finally {
    await b.close();
  }
}

async function phone(t: Deno.TestContext, chromium: Chromium, c: LearnedConsole, data: Data) {
  const b = await open(chromium, c, PHONE);
  try {
    await t.step("the section link, tapped; German figures", async () => {
      await reach(b.page, "tap");
      await rows(b.page, data.models, "de-DE");
      await cards(b.page);
      await shotOf(b.page.locator("#learned"), "33-learned-390-dark");
    });
    await t.step("attention and the sources on a phone", async () => {
      await attention(b.page);
      await sources(b.page, data.settlement, "de-DE", true);
    });
    await t.step("nothing wider than the phone; axe-core (dark)", async () => {
      const wide = await b.page.evaluate(() =>
        [...document.querySelectorAll("#learned *")].filter((el) =>
          el.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5
        ).map((el) => `${el.tagName}.${el.className}`)
      );
      assert.deepEqual(wide, []);
      assert.equal(
        await b.page.evaluate(() =>
          document.documentElement.scrollWidth > document.documentElement.clientWidth
        ),
        false,
      );
      await clean(b);
    });
  } finally {
    await b.close();
  }
}

type DeviationSource = DaySettlement["areas"][number]["accuracy"]["by_source"][number];

interface Data {
  models: ForecastModelPage;
  settlement: DaySettlement;
}

Deno.test({
  name:
    "console e2e: learned forecasts — method and reason per location, errors beside the baseline, what they saved after delivery (390/1440 px)",
  ignore: skipBrowserTests("console learned e2e"),
  sanitizeOps: false,
  sanitizeResources: false,
}, async (t) => {
  await ensureBundle();
  const c = await learnedConsole();
  try {
    const data: Data = {
      models: await get(c, "/v1/console/forecast-models"),
      settlement: await get(c, `/v1/delivery-days/${YESTERDAY}/settlement`),
    };
    // The cases the test is about, as the route has them.
    const method = (id: string) =>
      data.models.forecast_models.find((r) => r.market_location_id === id)?.method;
    assert.deepEqual([LEARNED, TEN, THREE, CORRECTED].map(method), [
      "learned",
      "load_7_days_before",
      "none",
      "customer_corrected",
    ]);
    await using chromium = await launchChromium();
    await t.step("1440 px, en-GB, light", (t) => desktop(t, chromium, c, data));
    await t.step("390 px, de-DE, touch, dark", (t) => phone(t, chromium, c, data));
  } finally {
    await c.close();
  }
});
