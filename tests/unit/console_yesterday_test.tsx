/**
 * Yesterday from the first screen (docs/console_attention.md and "After delivery"; issue 36,
 * item 5), without a browser: the line under the box's answer with the day's totals as the
 * settlement route answers them, no cost before any price, "no actuals yet" before any actual;
 * the past days offered above the delivery days; one read of a day's settlement shared.
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { PastDays, pastDays } from "../../components/PastDays.tsx";
import { YesterdayLine } from "../../components/YesterdayLine.tsx";
import { forgetSettlements, readDaySettlement } from "../../lib/console/settlement_reads.ts";
import type { DaySettlement } from "../../lib/wire/settlement.ts";
import { daySettlement } from "../support/settlement_fixture.ts";

const text = (html: string) =>
  html.replace(/<[^>]+>/g, "").replace(/&nbsp;|\u00a0/g, " ").replace(/&#39;/g, "'");
const noop = () => {};

Deno.test("yesterday's line: the day's totals, the link, no cost without prices, nothing measured", () => {
  const s = daySettlement("2027-03-09", "2027-03-08T23:00:00Z");
  const line = (body: DaySettlement, locale = "en") =>
    text(renderToString(
      <YesterdayLine
        day="2027-03-09"
        load={{ kind: "ok", body }}
        locale={locale}
        onSelect={noop}
      />,
    ));
  // The fixture's totals: 22.2 + 11.3 MWh short, costs of 3 decimals (the group shows them).
  assert.equal(
    line(s),
    "Yesterday (Tue 9 Mar), imbalance in all 2 areas: 33.5 MWh short, 33.9 MWh long, 1,967.843 " +
      "EUR; the day-ahead schedule alone: 12,007.95 EUR. provisional",
  );
  assert.match(line(s, "de-DE"), /: 33,5 MWh short, 33,9 MWh long, 1\.967,843 EUR;/);
  const html = renderToString(
    <YesterdayLine day="2027-03-09" load={{ kind: "ok", body: s }} locale="en" onSelect={noop} />,
  );
  assert.match(html, /<a href="#day-2027-03-09"\s*>Yesterday<\/a>/);
  const unpriced = {
    ...s,
    areas: s.areas.map((a) => ({
      ...a,
      completeness: { ...a.completeness, priced_quarter_hours: 0 },
    })),
  };
  assert.match(
    line(unpriced),
    /: 33\.5 MWh short, 33\.9 MWh long; no imbalance prices yet, so no cost\. provisional$/,
  );
  for (const load of [{ kind: "none" as const }]) {
    assert.equal(
      text(
        renderToString(<YesterdayLine day="2027-03-09" load={load} locale="en" onSelect={noop} />),
      ),
      "Yesterday (Tue 9 Mar): no actuals yet, so no imbalance cost.",
    );
  }
  const loading = renderToString(
    <YesterdayLine day="2027-03-09" load={{ kind: "loading" }} locale="en" onSelect={noop} />,
  );
  assert.equal(loading, "");
});

Deno.test("past days: yesterday and the six before it, each reachable by its day's id", () => {
  assert.deepEqual(pastDays("2026-03-02"), [
    "2026-03-01",
    "2026-02-28",
    "2026-02-27",
    "2026-02-26",
    "2026-02-25",
    "2026-02-24",
    "2026-02-23",
  ]);
  const html = renderToString(
    <PastDays
      days={pastDays("2026-11-25")}
      selected="2026-11-23"
      onSelect={noop}
      nowMs={Date.parse("2026-11-25T09:00:00Z")}
    />,
  );
  assert.match(
    html,
    /<li\s+id="day-2026-11-24" data-day="2026-11-24"><button [^>]*aria-pressed="false"[^>]*>Tue 24 Nov<strong> · yesterday<\/strong>/,
  );
  assert.match(html, /id="day-2026-11-23"[^]*?aria-pressed="true"/);
  assert.equal((html.match(/<li\s/g) ?? []).length, 7);
});

Deno.test("one read of a day's settlement serves the line and the view for a minute", async () => {
  forgetSettlements();
  let reads = 0;
  const get = () => {
    reads++;
    return Promise.resolve(daySettlement("2027-03-09", "2027-03-08T23:00:00Z"));
  };
  const t = Date.parse("2027-03-10T11:00:00Z");
  await readDaySettlement("2027-03-09", get, t);
  await readDaySettlement("2027-03-09", get, t + 59_000);
  assert.equal(reads, 1);
  await readDaySettlement("2027-03-09", get, t + 61_000);
  assert.equal(reads, 2, "read again after a minute");
  forgetSettlements();
  await readDaySettlement("2027-03-09", get, t + 62_000);
  assert.equal(reads, 3, "read again after a settlement input arrived");
  // A failed read is not kept.
  await assert.rejects(readDaySettlement("2027-03-08", () => Promise.reject(new Error("x")), t));
  await readDaySettlement("2027-03-08", get, t);
  assert.equal(reads, 4);
});
