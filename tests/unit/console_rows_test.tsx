/**
 * Truthful rows (docs/console.md, "Rows"): weekday and today/tomorrow in Berlin, the deadline of a
 * day with nothing sent, the TSO summary of the current version only, and a red Submitted cell on a
 * rejection or anomaly.
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { DayRow } from "../../components/DayRow.tsx";
import { AttentionSummary, attentionTone } from "../../components/AttentionSummary.tsx";
import {
  dayDeadline,
  dayName,
  nothingSentText,
  relativeDay,
  tsoSummary,
  weekdayDate,
} from "../../lib/console/day_texts.ts";
import type { DayOverview } from "../../lib/console/types.ts";

const NOW = Date.parse("2026-11-24T09:50:00Z"); // 10:50 Berlin, Tue 24 Nov
const step = (version: number, stale = false) => ({
  version,
  at: "2026-11-24T09:00:00Z",
  by: "orchestrator",
  detail: {},
  stale,
  stale_reason: stale ? "newer forecast for 3 market locations at 10:30 Berlin" : null,
});
const base: DayOverview = {
  delivery_day: "2026-11-25",
  quarter_hours: 96,
  gate_closure: "2026-11-24T11:00:00Z",
  gate_closure_passed: false,
  input_version: 0,
  last_input: null,
  steps: { forecast: null, aggregated: null, published: null, submitted: null },
  totals: {},
  schedules: [],
  warnings: [],
  failures: { forecast: null, aggregated: null, published: null, submitted: null },
};
const areas = (statuses: string[], version = 1, reason: string | null = null) =>
  statuses.map((s, i) => ({
    control_area: `10YDE-AREA-----${i}`,
    receiver: `10XDE-TSO------${i}`,
    version,
    file: `f${i}.xml`,
    tso_status: s as DayOverview["schedules"][number]["tso_status"],
    reason_code: null,
    reason_text: reason,
    at: "2026-11-24T09:10:00Z",
  }));
const row = (d: DayOverview, nowMs = NOW) =>
  renderToString(
    <table>
      <tbody>
        <DayRow
          day={d}
          selected={false}
          onSelect={() => {}}
          actions={[]}
          busy={false}
          onAction={() => {}}
          timeZone="Europe/Berlin"
          nowMs={nowMs}
        />
      </tbody>
    </table>,
  );

Deno.test("row texts: weekday, today/tomorrow in Berlin, and the deadline through one function", () => {
  assert.equal(weekdayDate("2026-11-25"), "Wed 25 Nov");
  assert.equal(relativeDay("2026-11-25", NOW), "tomorrow");
  assert.equal(relativeDay("2026-11-24", NOW), "today");
  assert.equal(relativeDay("2026-11-27", NOW), null);
  // 23:30 UTC on 24 Nov is already 25 Nov in Berlin.
  assert.equal(relativeDay("2026-11-25", Date.parse("2026-11-24T23:30:00Z")), "today");
  assert.equal(dayName("2026-11-25", NOW), "tomorrow (Wed 25 Nov)");
  assert.deepEqual(dayDeadline(base), { name: "gate closure", at: base.gate_closure });
  const at = Date.parse(base.gate_closure);
  assert.equal(
    nothingSentText(dayDeadline(base), at - (2 * 60 + 10) * 60_000),
    "nothing sent — gate closure 12:00 Berlin in 2 h 10 min",
  );
  assert.equal(nothingSentText(dayDeadline(base), at), "missed: gate closure passed, nothing sent");
  // Another deadline (the TSO's) only changes the argument.
  assert.equal(
    nothingSentText({ name: "TSO deadline", at: "2026-11-24T13:30:00Z" }, NOW),
    "nothing sent — TSO deadline 14:30 Berlin in 3 h 40 min",
  );
});

Deno.test("row: tomorrow without state names its day and its deadline; after it, missed", () => {
  const html = row(base);
  assert.match(html, /Wed 25 Nov · <strong>tomorrow<\/strong>/);
  assert.match(html, /nothing sent — gate closure 12:00 Berlin in 1 h 10 min/);
  const late = row({ ...base, gate_closure_passed: true }, Date.parse("2026-11-24T11:00:01Z"));
  assert.match(
    late,
    /class="step step-none step-missed">missed: gate closure passed, nothing sent/,
  );
  // A past day without submission keeps its dash.
  assert.doesNotMatch(row({ ...base, delivery_day: "2026-11-20" }), /nothing sent|missed/);
});

Deno.test("TSO summary: counts the current version only; amber until it is answered", () => {
  const sent = { ...base, input_version: 1, steps: { ...base.steps, submitted: step(1) } };
  assert.equal(tsoSummary(base), null);
  assert.deepEqual(tsoSummary({ ...sent, schedules: areas(["confirmed", "confirmed"]) }), {
    tone: "ok",
    text: "confirmed: schedule v1 in 2 of 2 areas (aggregate v1)",
  });
  // New input after confirmation: the confirmations are for v1, the current v2 is not sent.
  const outdated = {
    ...sent,
    input_version: 2,
    steps: { ...sent.steps, submitted: step(1, true) },
    schedules: areas(["confirmed", "confirmed"]),
  };
  assert.deepEqual(tsoSummary(outdated), {
    tone: "warn",
    text: "confirmed: schedule v1 in 2 of 2 areas (aggregate v1) · aggregate v2 not sent yet",
  });
  assert.match(row(outdated), /data-tso="warn"/);
  assert.deepEqual(tsoSummary({ ...sent, schedules: areas(["confirmed", "acknowledged"], 2) }), {
    tone: "warn",
    text: "confirmed: 1 of 2 areas · schedule v2 (aggregate v1) waiting for 1 TSO answer",
  });
});

Deno.test("row: a rejection turns the Submitted cell red and says why", () => {
  const d = {
    ...base,
    input_version: 1,
    steps: { ...base.steps, submitted: step(1) },
    schedules: areas(["rejected", "confirmed"], 1, "<b>sum</b> of time series 2 wrong"),
  };
  const html = row(d);
  assert.match(html, /data-tso="error"/);
  assert.match(html, /rejected in 1 of 2 areas · 1 confirmed/);
  const cell = html.slice(html.indexOf('data-label="Submitted"'));
  assert.match(cell, /^[^>]*><span class="step step-failed">/);
  assert.match(
    cell,
    /10YDE-AREA-----0: rejected by the TSO \(schedule v1\): &lt;b>sum&lt;\/b> of time series 2 wrong/,
  );
  assert.match(cell, /aggregate v1/);
});

Deno.test("summary: worst colour, items link to their day", () => {
  const items = [
    {
      code: "tso_rejected" as const,
      level: "error" as const,
      delivery_day: "2026-11-25",
      message: "R.",
    },
    {
      code: "orchestrator_stopped" as const,
      level: "warn" as const,
      delivery_day: null,
      message: "S.",
    },
  ];
  assert.equal(attentionTone(items), "error");
  assert.equal(attentionTone([]), "none");
  const html = renderToString(<AttentionSummary items={items} onSelect={() => {}} />);
  assert.match(html, /class="attention attention-error"/);
  assert.match(html, /1 problem needs you now/);
  assert.match(html, /<a href="#day-2026-11-25"[^>]*>R\.<\/a>/);
  assert.match(html, /<span>S\.<\/span>/);
});
