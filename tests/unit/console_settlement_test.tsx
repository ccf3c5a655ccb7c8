/**
 * The console's after-delivery view without a browser (docs/console_after_delivery.md),
 * rendered with preact-render-to-string from a settlement built in the test
 * (`tests/support/settlement_fixture.ts`, checked against the wire schemas): the totals sentence
 * in `en` and `de-DE`, units always shown, missing values as gaps and "—" (never 0), the 92- and
 * 100-quarter-hour days, completeness, the costliest quarter-hours, sources, the 404 sentence
 * (the month: console_settlement_month_test.tsx).
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { pointAt, SettlementChart, stepPath } from "../../components/SettlementChart.tsx";
import { SettlementReadout } from "../../components/SettlementReadout.tsx";
import { AfterDeliveryView, readSettlement } from "../../islands/AfterDelivery.tsx";
import { ApiError } from "../../lib/console/api.ts";
import { money as eur } from "../../lib/console/format.ts";
import {
  costliest,
  formatNumber,
  imbalanceText,
  operatorLocale,
  savingWords,
  sourceLines,
  totalsFormat,
  totalsSentence,
} from "../../lib/console/settlement_texts.ts";
import {
  DaySettlementSchema,
  MonthSettlementSchema,
  type SettlementTotals,
} from "../../lib/wire/settlement.ts";
import { AMPRION, daySettlement, monthSettlement, TENNET } from "../support/settlement_fixture.ts";
import { htmlText } from "../support/figures.ts";

const text = htmlText;

/** 2027-03-10 12:00 Berlin: 2027-03-09 is "yesterday". */
const NOW = Date.parse("2027-03-10T11:00:00Z");
const TOTALS: SettlementTotals = {
  short_mwh: 3.2,
  long_mwh: 1.1,
  cost_eur: 412.5,
  day_ahead_cost_eur: 1030,
  imbalance_avoided_eur: 617.5,
  intraday_energy_cost_eur: 105.2,
  intraday_saving_eur: 512.3,
  post_delivery_moved_eur: null,
};

Deno.test("fixtures match the wire shapes the routes will answer", () => {
  for (const n of [92, 96, 100]) {
    DaySettlementSchema.parse(daySettlement("2027-03-09", "2027-03-08T23:00:00Z", n));
  }
  MonthSettlementSchema.parse(monthSettlement("2027-03", 31));
});

Deno.test("the totals sentence in en and de-DE: numbers in the locale, units always shown", () => {
  const say = (locale: string, day = "2027-03-09", totals = TOTALS) =>
    totalsSentence({ day, where: "Amprion", totals, locale, nowMs: NOW }).replace(/\u00a0/g, " ");
  assert.equal(
    say("en"),
    "Yesterday in Amprion: 3.20 MWh short, 1.10 MWh long, 412.50 EUR; the day-ahead schedule alone: 1,030.00 EUR.",
  );
  assert.equal(
    say("de-DE"),
    "Yesterday in Amprion: 3,20 MWh short, 1,10 MWh long, 412,50 EUR; the day-ahead schedule alone: 1.030,00 EUR.",
  );
  assert.match(say("en", "2027-03-02"), /^Tue 2 Mar in Amprion:/, "an older day by its date");
  assert.equal(
    say("en", "2027-03-09", { ...TOTALS, cost_eur: -12, day_ahead_cost_eur: null }),
    "Yesterday in Amprion: 3.20 MWh short, 1.10 MWh long, -12.00 EUR (received); no day-ahead version to compare.",
  );
  assert.ok(
    say("en").includes("\u00a0") === false && totalsSentence({
      day: "2027-03-09",
      where: "Amprion",
      totals: TOTALS,
      locale: "en",
      nowMs: NOW,
    }).includes("3.20\u00a0MWh"),
    "number and unit are held together by a no-break space",
  );
});

Deno.test("operator locale: the browser's first supported language, else en", () => {
  assert.equal(operatorLocale(["de-DE", "en-US"]), "de-DE");
  assert.equal(operatorLocale(["en-GB"]), "en-GB");
  assert.equal(operatorLocale(["not a tag!", "de"]), "de");
  assert.equal(operatorLocale([]), "en");
  assert.equal(operatorLocale(undefined), "en");
});

Deno.test("missing values read as — and never as 0; a line breaks at a gap", () => {
  assert.equal(formatNumber(null, 2, "en"), "—");
  assert.equal(formatNumber(NaN, 2, "en"), "—");
  assert.equal(eur(null, "de-DE"), "—");
  assert.equal(eur(0, "en").replace(/\u00a0/g, " "), "0.00 EUR", "a real zero stays 0");
  assert.equal(imbalanceText(null, "en"), "—");
  assert.equal(imbalanceText(0.584, "en").replace(/\u00a0/g, " "), "584 kWh short");
  assert.equal(imbalanceText(-0.2, "de-DE").replace(/\u00a0/g, " "), "200 kWh long");
  // Balanced only at 0: 1 kWh is an imbalance (docs/console.md, "Numbers").
  assert.equal(imbalanceText(0.001, "en").replace(/\u00a0/g, " "), "1.00 kWh short");
  assert.equal(imbalanceText(0, "en"), "balanced");

  const x = (i: number) => i * 10;
  const y = (v: number) => v;
  assert.equal(
    stepPath([1, 2, null, 3], x, y),
    "M0.0,1.0L10.0,1.0L10.0,2.0L20.0,2.0M30.0,3.0L40.0,3.0",
  );
  assert.equal(stepPath([null, null], x, y), "", "nothing known: nothing drawn");

  const html = renderToString(
    <SettlementReadout
      locale="en"
      at={{
        from: "02:00",
        to: "02:15",
        schedule_mw: 12,
        day_ahead_mw: null,
        actual_mw: null,
        imbalance_mwh: null,
        price_eur_mwh: null,
        cost_eur: null,
      }}
    />,
  );
  assert.equal(
    text(html),
    "02:00–02:15 Berlin schedule 12.0 MW day-ahead — actual — imbalance — price — cost —",
  );
});

Deno.test("the day view: sentence over all areas, a chart per area with gaps, completeness, worst, sources", () => {
  const s = daySettlement("2027-03-09", "2027-03-08T23:00:00Z");
  const html = renderToString(
    <AfterDeliveryView
      day="2027-03-09"
      load={{ kind: "ok", body: s }}
      locale="en"
      nowMs={NOW}
      width={960}
    />,
  );
  const t = text(html);
  assert.match(
    t,
    /^After delivery Tue 9 Mar · 2027-03-09 · MW, MWh, EUR provisional Yesterday in all 2 areas: /,
  );
  assert.match(t, /96 quarter-hours · computed 2027-03-10 06:00 Berlin/);
  assert.equal(
    (html.match(/class="chart-svg settlement-svg"/g) ?? []).length,
    2,
    "one chart per area",
  );
  // Amprion has no actual in quarter-hours 8–11: the actual line has two pieces, four gap ticks.
  const amprion = html.slice(
    html.indexOf(`data-area="${AMPRION}"`),
    html.indexOf(`data-area="${TENNET}"`),
  );
  const act = /class="series settle-act" d="([^"]+)"/.exec(amprion)![1];
  assert.equal(act.match(/M/g)!.length, 2);
  assert.equal((amprion.match(/class="missing-mark"/g) ?? []).length, 4);
  assert.match(text(amprion), /imbalance unknown \(4 quarter-hours\)/);
  assert.equal((amprion.match(/class="hit"/g) ?? []).length, 96);
  // Short hatched, long dotted: both kinds of band are drawn, each with its own pattern.
  assert.match(
    amprion,
    /class="imb imb-short" fill="url\(#settle-[\w-]+-10YDE-RWENET---I-short\)"/,
  );
  assert.match(
    amprion,
    /class="imb imb-long" fill="url\(#settle-[\w-]+-10YDE-RWENET---I-long\)"/,
  );
  // Per area: the sentence, completeness with the reason, accuracy, worst, sources.
  const a = s.areas[0];
  // Written as the day's figures are: the areas shown add up to the day shown.
  const say = totalsSentence({
    day: "2027-03-09",
    where: "Amprion",
    totals: a.totals,
    locale: "en",
    nowMs: NOW,
    format: totalsFormat(s.areas.map((x) => x.totals), s.totals, "en"),
  });
  assert.ok(t.includes(say.replace(/\u00a0/g, " ")), say);
  assert.match(
    t,
    /provisional 40 metered · 120 profile-settled · 2 missing market locations · 94 of 96 quarter-hours priced · actual in 92 of 96 quarter-hours · provisional: 2 market locations without complete actuals, 2 quarter-hours without a price; the numbers can still change/,
  );
  assert.match(
    t,
    /final 40 metered · 120 profile-settled · 0 missing market locations · 96 of 96 quarter-hours priced/,
  );
  assert.match(t, /schedule MAE 800 kW · bias -100 kW · nMAE 4.20 %/);
  // Ranked by money, not by energy (issue 36, item 10): the costs fall row by row.
  assert.match(t, /The 10 costliest quarter-hours in Amprion/);
  const costs = [...amprion.matchAll(/<td>([\d,.]+)(&nbsp;|\u00a0)EUR<\/td>/g)]
    .map((m) => Number(m[1].replace(/,/g, "")));
  assert.equal(costs.length, 10);
  assert.deepEqual(costs, [...costs].sort((x, y) => y - x));
  assert.match(
    t,
    /Where the deviation came from profile H25: 3.40 MWh \(75.6 %\) over 120 locations, mean 600 kW/,
  );
  assert.match(t, /customer forecasts: 1.10 MWh \(24.4 %\)/);
  assert.match(t, /profile G25: — over 14 locations, mean —/, "unknown deviation: —, not 0");
  assert.match(t, /The intraday versions (saved|cost)/);
  const words = (t: SettlementTotals, locale = "en") =>
    savingWords(t, locale)?.replace(/\u00a0/g, " ");
  assert.equal(
    words(TOTALS),
    "the intraday versions saved 512.30 EUR net (617.50 EUR of imbalance avoided, less 105.20 EUR for the intraday energy)",
  );
  assert.equal(
    words({ ...TOTALS, intraday_energy_cost_eur: null, intraday_saving_eur: null }),
    "the intraday versions avoided 617.50 EUR of imbalance, before the cost of the intraday energy",
  );
  assert.equal(
    words({ ...TOTALS, intraday_energy_cost_eur: 700, intraday_saving_eur: -82.5 }, "de-DE"),
    "the intraday versions cost 82,50 EUR net (617,50 EUR of imbalance avoided, less 700,00 EUR for the intraday energy)",
  );
  assert.doesNotMatch(html, /style=/, "no style attribute: the CSP forbids inline style");
  // The same day open twice (day list and month view): every id stays unique.
  const twice = renderToString(
    <div>
      <AfterDeliveryView day="2027-03-09" load={{ kind: "ok", body: s }} locale="en" nowMs={NOW} />
      <AfterDeliveryView day="2027-03-09" load={{ kind: "ok", body: s }} locale="en" nowMs={NOW} />
    </div>,
  );
  const ids = [...twice.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(ids.length, 2 * 2 * 5, "per area: heading, title, readout, two patterns");
  assert.equal(new Set(ids).size, ids.length, `duplicate ids: ${ids.join(" ")}`);
});

Deno.test("the readout of a quarter-hour without actual and one without price", () => {
  const s = daySettlement("2027-03-09", "2027-03-08T23:00:00Z");
  const a = s.areas[0];
  const gap = pointAt(a, s.quarter_hours, 9);
  assert.equal(gap.from, "02:15");
  assert.equal(gap.actual_mw, null);
  assert.equal(gap.cost_eur, null);
  const t = text(renderToString(<SettlementReadout at={gap} locale="de-DE" />));
  assert.match(
    t,
    /^02:15–02:30 Berlin schedule \d+,\d MW day-ahead \d+,\d MW actual — imbalance — price — cost —$/,
  );
  const unpriced = text(
    renderToString(<SettlementReadout at={pointAt(a, s.quarter_hours, 20)} locale="en" />),
  );
  assert.match(unpriced, /imbalance \d[\d.]* k?Wh (short|long) price — cost —$/);
});

Deno.test("92 and 100 quarter-hour days: every quarter-hour charted, Berlin labels skip or repeat", () => {
  const spring = daySettlement("2027-03-28", "2027-03-27T23:00:00Z", 92);
  const html = renderToString(
    <SettlementChart
      area={spring.areas[1]}
      quarterHours={spring.quarter_hours}
      day="2027-03-28"
      locale="en"
      width={1200}
    />,
  );
  assert.equal((html.match(/class="hit"/g) ?? []).length, 92);
  const labels = [...html.matchAll(/<text x="[^"]+" y="[^"]+" text-anchor="middle">([^<]+)</g)].map(
    (m) => m[1],
  );
  assert.deepEqual(labels, [
    "00:00",
    "03:00",
    "06:00",
    "09:00",
    "12:00",
    "15:00",
    "18:00",
    "21:00",
  ]);
  const before = pointAt(spring.areas[1], spring.quarter_hours, 7);
  assert.deepEqual([before.from, before.to], ["01:45", "03:00"], "the clock jumps at 02:00");
  assert.deepEqual(pointAt(spring.areas[1], spring.quarter_hours, 91).to, "00:00");
  const t = text(renderToString(
    <AfterDeliveryView
      day="2027-03-28"
      load={{ kind: "ok", body: spring }}
      locale="en"
      nowMs={NOW}
      width={960}
    />,
  ));
  assert.match(t, /92 quarter-hours · computed/);
  assert.match(t, /90 of 92 quarter-hours priced/);

  const autumn = daySettlement("2027-10-31", "2027-10-30T22:00:00Z", 100);
  const h2 = renderToString(
    <SettlementChart
      area={autumn.areas[0]}
      quarterHours={autumn.quarter_hours}
      day="2027-10-31"
      locale="en"
      width={1200}
    />,
  );
  assert.equal((h2.match(/class="hit"/g) ?? []).length, 100);
  assert.deepEqual(pointAt(autumn.areas[0], autumn.quarter_hours, 11).from, "02:45");
  assert.deepEqual(pointAt(autumn.areas[0], autumn.quarter_hours, 12).from, "02:00", "02:00 twice");
});

Deno.test("no settlement: a plain sentence; a refusal in words; 401 left to the key gate", async () => {
  const none = text(renderToString(
    <AfterDeliveryView day="2027-03-09" load={{ kind: "none" }} locale="en" nowMs={NOW} />,
  ));
  assert.match(
    none,
    /No actuals for this day yet: the imbalance and its cost appear when metered values for it arrive\./,
  );
  const fail = (status: number, detail: string) => () =>
    Promise.reject(new ApiError(status, detail));
  assert.deepEqual(await readSettlement("2027-03-09", fail(404, "Not Found")), { kind: "none" });
  assert.deepEqual(
    await readSettlement("2027-03-09", fail(500, "Internal error, request id r-1.")),
    {
      kind: "error",
      text: "The settlement of 2027-03-09 could not be read: Internal error, request id r-1.",
    },
  );
  await assert.rejects(readSettlement("2027-03-09", fail(401, "no key")), ApiError);
  const seen: string[] = [];
  const ok = await readSettlement("2027-03-09", (p) => {
    seen.push(p);
    return Promise.resolve(daySettlement("2027-03-09", "2027-03-08T23:00:00Z"));
  });
  assert.equal(ok.kind, "ok");
  assert.deepEqual(seen, ["/v1/delivery-days/2027-03-09/settlement"]);
});

Deno.test("sources: largest share first, an unknown one last and as —", () => {
  const lines = sourceLines([
    { source: "G25", locations: 1, mad_mw: null, abs_deviation_mwh: null },
    { source: "customer", locations: 2, mad_mw: 0.1, abs_deviation_mwh: 1 },
    { source: "H25", locations: 3, mad_mw: 0.2, abs_deviation_mwh: 3 },
  ], "de-DE").map((l) => l.replace(/\u00a0/g, " "));
  assert.deepEqual(lines, [
    "profile H25: 3,00 MWh (75,0 %) over 3 locations, mean 200 kW",
    "customer forecasts: 1,00 MWh (25,0 %) over 2 locations, mean 100 kW",
    "profile G25: — over 1 location, mean —",
  ]);
});

Deno.test("the costliest quarter-hours: by |cost| in EUR, none that cost nothing or is unpriced", () => {
  const qh = ["q0", "q1", "q2", "q3", "q4"];
  const list = costliest({
    // A large imbalance at a low price costs less than a small one at a high price.
    imbalance_mwh: [0.9, 0.1, -0.2, 0, 0.5],
    price_eur_mwh: [10, 200, 100, 50, null],
    cost_eur: [9, 20, -20, 0, null],
  }, qh);
  assert.deepEqual(list.map((w) => [w.start, w.cost_eur]), [["q2", -20], ["q1", 20], ["q0", 9]]);
  assert.deepEqual(
    costliest({ imbalance_mwh: [0], price_eur_mwh: [50], cost_eur: [0] }, ["q0"]),
    [],
  );
});
