/**
 * The intraday words of the console (docs/console.md, "Intraday"): the phase line of a day's
 * schedules, the frozen time in Berlin (also on the clock-change day), the locked deviation in
 * words, the TSO deadline of a day with nothing sent, when the manual submit stays possible, and
 * the attention code `locked_deviation`.
 */
import assert from "node:assert/strict";
import { attention } from "../../lib/console/attention.ts";
import { dayDeadline, nothingSentText } from "../../lib/console/day_texts.ts";
import {
  frozenNowBefore,
  frozenText,
  lockedDeviationText,
  phaseLine,
  schedulesOpen,
} from "../../lib/console/intraday_texts.ts";
import { emptyDay, overview } from "../../lib/pipeline/day_state.ts";
import type { DayOverview } from "../../lib/wire/delivery_days.ts";
import { intradayEntry, type ScheduleEntry } from "../support/intraday_entry.ts";

type Entry = ScheduleEntry;
const AREAS = ["10YDE-RWENET---I", "10YDE-EON------1", "10YDE-VE-------2", "10YDE-ENBW-----N"];
const TODAY = "2026-11-24";
// 10:14 Berlin on Tue 24 Nov 2026 (CET, UTC+1).
const NOW = Date.parse("2026-11-24T09:14:00Z");
const running = { state: "running" as const, failed_passes_in_a_row: 0 };

const entry = (i: number, over: Partial<Entry> = {}): Entry =>
  intradayEntry(AREAS[i], `f${i}.xml`, over);
/** A day of the overview as `GET /v1/console/delivery-days` answers it. */
const day = (d: string, schedules: Entry[], extra: Partial<DayOverview> = {}): DayOverview => ({
  ...overview(emptyDay(d), NOW, "12:00"),
  tso_deadline: "2026-11-23T13:30:00Z",
  schedules_open_until: "2026-11-24T22:30:00Z",
  schedules,
  ...extra,
});

Deno.test("phase line: intraday v7 · frozen until 10:30 Berlin (the count is the TSO summary's)", () => {
  const all = [0, 1, 2, 3].map((i) => entry(i));
  // "4 of 4 confirmed" stands in the TSO summary beside it: not said twice (issue 36, item 10).
  assert.equal(phaseLine(day(TODAY, all)), "intraday v7 · frozen until 10:30 Berlin");
  // Another area stands at an older version: the range says so.
  const mixed = [entry(0), entry(1, { tso_status: "acknowledged" }), entry(2, { version: 5 })];
  assert.equal(phaseLine(day(TODAY, mixed)), "intraday v5–v7 · frozen until 10:30 Berlin");
  // A day-ahead version froze nothing: no frozen time.
  const da = entry(0, {
    version: 1,
    phase: "day_ahead",
    sent_at: "2026-11-23T10:00:00Z",
    frozen_before: "2026-11-23T23:00:00Z",
  });
  assert.equal(phaseLine(day(TODAY, [da])), "day-ahead v1");
  assert.equal(phaseLine(day(TODAY, [])), null);
  // What is frozen now moves with the clock, never behind the version's own frozen part.
  assert.equal(frozenNowBefore(Date.parse("2026-11-24T18:47:00Z"), 15), "2026-11-24T19:15:00.000Z");
  assert.equal(frozenNowBefore(Date.parse("2026-11-24T18:45:00Z"), 15), "2026-11-24T19:00:00.000Z");
  assert.match(
    phaseLine(day(TODAY, all), "2026-11-24T19:15:00.000Z")!,
    /frozen until 20:15 Berlin/,
  );
});

Deno.test("frozen time: Berlin wall clock, the clock-change day, the whole day frozen", () => {
  // 2026-10-25: 01:45 UTC is 02:45 CET, after the repeated hour.
  assert.equal(frozenText("2026-10-25", "2026-10-25T01:45:00Z"), "frozen until 02:45 Berlin");
  // 00:45 UTC is the first 02:45 (CEST).
  assert.equal(frozenText("2026-10-25", "2026-10-25T00:45:00Z"), "frozen until 02:45 Berlin");
  assert.equal(frozenText(TODAY, "2026-11-24T23:00:00Z"), "every quarter-hour frozen");
  assert.equal(frozenText(TODAY, "2026-11-23T23:00:00Z"), null);
  assert.equal(frozenText(TODAY, null), null);
});

Deno.test("locked deviation in words, said once for a day's areas with their TSOs' names", () => {
  const plain = (s: string | null) => s?.replace(/\u00a0/g, " ") ?? null;
  assert.equal(
    plain(lockedDeviationText([entry(2, { locked_deviation_mwh: 2.4 })])),
    "2.40 MWh can no longer be scheduled away in 50Hertz",
  );
  assert.equal(lockedDeviationText([entry(2, { locked_deviation_mwh: 0.04 })]), null);
  assert.equal(lockedDeviationText([entry(2, { locked_deviation_mwh: null })]), null);
  assert.equal(
    plain(lockedDeviationText([
      entry(0, { control_area: "10YAT-APG------L", locked_deviation_mwh: 1 }),
    ])),
    "1.00 MWh can no longer be scheduled away in 10YAT-APG------L",
  );
  // Four areas: the words once, the areas listed (issue 36, item 10).
  assert.equal(
    plain(lockedDeviationText([
      entry(0, { locked_deviation_mwh: 7.9 }),
      entry(1, { locked_deviation_mwh: 0.04 }),
      entry(2, { locked_deviation_mwh: 0.592 }),
      entry(3, { locked_deviation_mwh: 9.5 }),
    ], "de-DE")),
    "Can no longer be scheduled away: 7,90 MWh in Amprion, 592 kWh in 50Hertz, " +
      "9,50 MWh in TransnetBW",
  );
});

Deno.test("nothing sent: the TSO deadline (14:30 Berlin the day before), then missed", () => {
  const tomorrow = day("2026-11-25", [], { tso_deadline: "2026-11-24T13:30:00Z" });
  const d = dayDeadline(tomorrow);
  assert.deepEqual(d, { name: "TSO deadline", at: "2026-11-24T13:30:00Z" });
  assert.equal(nothingSentText(d, NOW), "nothing sent — TSO deadline 14:30 Berlin in 4 h 16 min");
  assert.equal(
    nothingSentText(d, Date.parse("2026-11-24T13:30:00Z")),
    "missed: TSO deadline passed, nothing sent",
  );
  // Gate closure (12:00) passed, the TSO deadline ahead: not missed.
  const noon = Date.parse("2026-11-24T11:30:00Z");
  const items = attention({ days: [tomorrow], orchestrator: running, nowMs: noon });
  assert.deepEqual(items.map((i) => i.code), ["not_sent_yet"]);
  const late = attention({
    days: [tomorrow],
    orchestrator: running,
    nowMs: Date.parse("2026-11-24T13:31:00Z"),
  });
  assert.deepEqual(late.map((i) => [i.code, i.level]), [["deadline_missed", "error"]]);
  assert.equal(
    late[0].message,
    "Tomorrow (Wed 25 Nov): missed: TSO deadline passed, nothing sent.",
  );
});

Deno.test("submit stays possible after gate closure while a quarter-hour is open", () => {
  const d = day(TODAY, [entry(0)]);
  assert.equal(d.gate_closure_passed, true);
  assert.equal(schedulesOpen(d, NOW), true);
  assert.equal(schedulesOpen(d, Date.parse("2026-11-24T22:30:00Z")), false);
  // Without the field (an older producer), gate closure decides.
  assert.equal(schedulesOpen({ ...d, schedules_open_until: undefined }, NOW), false);
});

Deno.test("attention: locked_deviation (warn) for today's areas from 0.1 MWh, not for tomorrow", () => {
  const today = day(TODAY, [
    entry(0, { locked_deviation_mwh: 0.099 }),
    entry(2, { locked_deviation_mwh: 2.4 }),
    entry(3, { locked_deviation_mwh: 0.1 }),
  ]);
  const items = attention({ days: [today], orchestrator: running, nowMs: NOW });
  const locked = items.filter((i) => i.code === "locked_deviation");
  // Both areas in one item, each with its amount (tests/unit/console_attention_areas_test.ts).
  assert.deepEqual(locked.map((i) => [i.level, i.control_areas, i.delivery_day]), [
    ["warn", [AREAS[2], AREAS[3]], TODAY],
  ]);
  assert.equal(
    locked[0].message,
    "Today (Tue 24 Nov): energy that can no longer be scheduled away: 2.40 MWh in 50Hertz, " +
      "100 kWh in TransnetBW; the frozen quarter-hours deviate from the schedules the TSOs have.",
  );
  const tomorrow = day("2026-11-25", [entry(2, { locked_deviation_mwh: 5 })], {
    tso_deadline: "2026-11-24T13:30:00Z",
  });
  assert.deepEqual(
    attention({ days: [tomorrow], orchestrator: running, nowMs: NOW })
      .filter((i) => i.code === "locked_deviation"),
    [],
  );
});

Deno.test("attention: an outdated schedule of today is still sent while a quarter-hour is open", () => {
  const d = day(TODAY, [entry(0)], {
    input_version: 3,
    steps: {
      forecast: null,
      aggregated: null,
      published: null,
      submitted: {
        version: 2,
        at: "2026-11-24T09:13:00Z",
        by: "orchestrator",
        detail: {},
        stale: true,
        stale_reason: null,
      },
    },
  });
  const [item] = attention({ days: [d], orchestrator: running, nowMs: NOW })
    .filter((i) => i.code === "schedule_outdated");
  assert.match(item.message, /the current one is v3, not sent yet\.$/);
});
