/**
 * What needs the operator (docs/console_attention.md): each code from day states as the
 * overview builds them, "all confirmed" only when it is the truth, and the clock-change day.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { attention } from "../../lib/console/attention.ts";
import { type DayState, emptyDay, overview } from "../../lib/pipeline/day_state.ts";
import type { DayOverview } from "../../lib/wire/delivery_days.ts";

const AREAS = ["10YDE-RWENET---I", "10YDE-EON------1", "10YDE-VE-------2", "10YDE-ENBW-----N"];
// 2026-11-24 09:50 Berlin: tomorrow is Wed 25 Nov, its gate closure 12:00 Berlin today.
const clock = new FakeClock(Date.parse("2026-11-24T08:50:00Z"));
const TOMORROW = "2026-11-25";
const running = { state: "running" as const, failed_passes_in_a_row: 0 };

const rec = (version: number, at = "2026-11-24T08:00:00Z", detail = {}) => ({
  version,
  at,
  by: "orchestrator",
  detail,
});
/** A day through every step at input version `v`, submitted with `submitted` (aggregate version). */
function state(day: string, v: number, submitted: number | null, extra: Partial<DayState> = {}) {
  const s: DayState = {
    delivery_day: day,
    input_version: v,
    last_input: {
      at: "2026-11-24T08:30:00Z",
      by: "pv-customer",
      market_locations: 12,
      source: "customer",
    },
    steps: {
      forecast: rec(v),
      aggregated: rec(v, undefined, { market_locations: 380, missing_forecast: 0 }),
      published: rec(v),
      ...(submitted === null ? {} : { submitted: rec(submitted) }),
    },
    ...extra,
  };
  return s;
}
function schedules(
  statuses: string[],
  version = 1,
  reason: string | null = null,
): DayOverview["schedules"] {
  return statuses.map((st, i) => ({
    control_area: AREAS[i],
    receiver: AREAS[i],
    version,
    file: `f${i}.xml`,
    tso_status: st as DayOverview["schedules"][number]["tso_status"],
    reason_code: reason ? "A52" : null,
    reason_text: st === "rejected" || st === "anomaly" ? reason : null,
    at: "2026-11-24T08:40:00Z",
  }));
}
const view = (s: DayState, sch: DayOverview["schedules"] = [], now = clock.now()) => ({
  ...overview(s, now, "12:00"),
  schedules: sch,
});
const codes = (items: { code: string }[]) => items.map((i) => i.code);

Deno.test("attention: all schedules for tomorrow confirmed, only when true", () => {
  const ok = view(
    state(TOMORROW, 2, 2),
    schedules(["confirmed", "confirmed", "confirmed", "confirmed"]),
  );
  const items = attention({ days: [ok], orchestrator: running, nowMs: clock.now() });
  assert.deepEqual(items, [{
    code: "all_confirmed",
    level: "ok",
    delivery_day: TOMORROW,
    message: "All schedules for tomorrow (Wed 25 Nov) are confirmed: schedule v1 in 4 of 4 " +
      "areas (aggregate v2).",
  }]);
  // One answer missing: waiting, not confirmed.
  const waiting = view(
    state(TOMORROW, 2, 2),
    schedules(["confirmed", "confirmed", "acknowledged", "sent"]),
  );
  const w = attention({ days: [waiting], orchestrator: running, nowMs: clock.now() });
  assert.deepEqual(codes(w), ["awaiting_answer"]);
  assert.equal(w[0].level, "info");
  assert.match(w[0].message, /2 of 4 areas.*10YDE-VE-------2 acknowledged, 10YDE-ENBW-----N sent/);
  // New input after confirmation: amber, never "all confirmed".
  const outdated = view(
    state(TOMORROW, 3, 2),
    schedules(["confirmed", "confirmed", "confirmed", "confirmed"]),
  );
  const o = attention({ days: [outdated], orchestrator: running, nowMs: clock.now() });
  assert.deepEqual(codes(o), ["schedule_outdated"]);
  assert.equal(o[0].level, "warn");
  assert.match(o[0].message, /^Tomorrow \(Wed 25 Nov\): new input after the schedule was sent/);
  assert.match(o[0].message, /newer forecast for 12 market locations at 09:30 Berlin/);
  assert.match(
    o[0].message,
    /\. The TSOs have aggregate v2, the current one is v3, not sent yet\.$/,
  );
  // A failing step on the confirmed day takes the "ok" away and is an error.
  const failing = view(
    state(TOMORROW, 2, 2, {
      failures: {
        published: {
          at: "2026-11-24T08:45:00Z",
          message: "publish failed: sFTP 127.0.0.1:2222 refused the connection",
          attempts: 3,
          next_attempt_at: null,
        },
      },
    }),
    schedules(["confirmed", "confirmed", "confirmed", "confirmed"]),
  );
  const f = attention({ days: [failing], orchestrator: running, nowMs: clock.now() });
  assert.deepEqual(codes(f), ["step_failing"]);
  assert.equal(
    f[0].message,
    "Tomorrow (Wed 25 Nov): the published step failed at 09:45 Berlin (3 attempts): publish " +
      "failed: sFTP 127.0.0.1:2222 refused the connection",
  );
});

Deno.test("attention: a rejection and an anomaly with the TSO's reason, worst first", () => {
  const sch = schedules(
    ["rejected", "anomaly", "confirmed", "confirmed"],
    2,
    "time series 3 sums wrong",
  );
  const d = view(state(TOMORROW, 2, 2), sch);
  const items = attention({
    days: [d],
    orchestrator: { state: "stopped", failed_passes_in_a_row: 3 },
    nowMs: clock.now(),
  });
  assert.deepEqual(codes(items), [
    "orchestrator_failing",
    "tso_rejected",
    "tso_anomaly",
    "orchestrator_stopped",
  ]);
  assert.deepEqual(items[1], {
    code: "tso_rejected",
    level: "error",
    delivery_day: TOMORROW,
    control_area: AREAS[0],
    message:
      `Tomorrow (Wed 25 Nov): the TSO rejected the schedule for ${AREAS[0]} (schedule v2): ` +
      "time series 3 sums wrong.",
  });
  assert.equal(items[2].control_area, AREAS[1]);
  assert.match(items[2].message, /reported an anomaly in the schedule for 10YDE-EON------1/);
  assert.equal(items[3].delivery_day, null);
});

Deno.test("attention: tomorrow without state — not sent yet, then missed at gate closure", () => {
  const c = new FakeClock(Date.parse("2026-11-24T08:50:00Z"));
  const empty = () => view(emptyDay(TOMORROW), [], c.now());
  const before = attention({ days: [empty()], orchestrator: running, nowMs: c.now() });
  assert.deepEqual(before, [{
    code: "not_sent_yet",
    level: "info",
    delivery_day: TOMORROW,
    message: "Tomorrow (Wed 25 Nov): nothing sent — gate closure 12:00 Berlin in 2 h 10 min.",
  }]);
  c.advance(2 * 3600_000 + 10 * 60_000); // 12:00 Berlin
  const after = attention({ days: [empty()], orchestrator: running, nowMs: c.now() });
  assert.deepEqual(codes(after), ["deadline_missed"]);
  assert.equal(after[0].level, "error");
  assert.equal(
    after[0].message,
    "Tomorrow (Wed 25 Nov): missed: gate closure passed, nothing sent.",
  );
  // Sent (no TSO documents yet) before the deadline: neither.
  const sent = view(state(TOMORROW, 1, 1), [], c.now());
  assert.deepEqual(attention({ days: [sent], orchestrator: running, nowMs: c.now() }), []);
  // Days before today are left out; today without state is not "missed".
  const old = view(state("2026-11-20", 1, null), schedules(["rejected"], 1, "late"), c.now());
  const today = view(emptyDay("2026-11-24"), [], c.now());
  assert.deepEqual(attention({ days: [old, today], orchestrator: running, nowMs: c.now() }), []);
});

Deno.test("attention: missing forecasts with their share, and outdated after gate closure", () => {
  const s = state(TOMORROW, 2, 1);
  s.steps.aggregated = rec(2, undefined, { market_locations: 380, missing_forecast: 20 });
  const c = new FakeClock(Date.parse("2026-11-24T11:30:00Z")); // 12:30 Berlin
  const items = attention({ days: [view(s, [], c.now())], orchestrator: running, nowMs: c.now() });
  assert.deepEqual(codes(items), ["schedule_outdated", "missing_forecasts"]);
  // Without `schedules_open_until` the overview's gate closure ends the day's schedules.
  assert.match(items[0].message, /no quarter-hour is open any more, so it is not sent\.$/);
  assert.equal(
    items[1].message,
    "Tomorrow (Wed 25 Nov): 20 market locations (5 % of the day's, by count) have no forecast " +
      "in the latest aggregate; energy share unknown (aggregated before it was counted).",
  );
  // 5 % by count can be most of the day's energy: the message says both.
  const energy = (missing_mwh: number, unknown_locations: number) => {
    s.steps.aggregated = rec(2, undefined, {
      market_locations: 380,
      missing_forecast: 20,
      missing_energy: { expected_mwh: 40, missing_mwh, unknown_locations },
    });
    return attention({ days: [view(s, [], c.now())], orchestrator: running, nowMs: c.now() })[1]
      .message;
  };
  assert.equal(
    energy(30, 0),
    "Tomorrow (Wed 25 Nov): 20 market locations (5 % of the day's, by count) have no forecast " +
      "in the latest aggregate; they carry 75 % of the day's expected energy (30 of 40 MWh).",
  );
  assert.match(
    energy(30, 4),
    /; they carry at least 75 % of the day's expected energy \(30 of 40 MWh\); energy unknown for 4 locations without load profile\.$/,
  );
  assert.match(
    energy(0, 20),
    /; energy share unknown for 20 locations without load profile\.$/,
  );
});

Deno.test("attention: clock-change day — tomorrow is 25 Oct 2026 until Berlin midnight (CEST)", () => {
  const DST = "2026-10-25";
  const c = new FakeClock(Date.parse("2026-10-24T21:30:00Z")); // 23:30 Berlin, Sat 24 Oct
  const d = () =>
    view(
      state(DST, 1, 1),
      schedules(["confirmed", "confirmed", "confirmed", "confirmed"]),
      c.now(),
    );
  assert.equal(d().quarter_hours, 100);
  const items = attention({ days: [d()], orchestrator: running, nowMs: c.now() });
  assert.deepEqual(codes(items), ["all_confirmed"]);
  assert.match(items[0].message, /^All schedules for tomorrow \(Sun 25 Oct\)/);
  c.advance(3600_000); // 00:30 Berlin: the day is today, and "tomorrow" is 26 Oct without state
  const later = attention({
    days: [d(), view(emptyDay("2026-10-26"), [], c.now())],
    orchestrator: running,
    nowMs: c.now(),
  });
  // Today confirmed is the line of good news, before the information.
  assert.deepEqual(codes(later), ["all_confirmed", "not_sent_yet"]);
  assert.match(later[0].message, /^All schedules for today \(Sun 25 Oct\) are confirmed/);
  assert.equal(later[1].delivery_day, "2026-10-26");
  // 00:30 CEST is 22:30 UTC; 12:00 Berlin on 25 Oct is 11:00 UTC (CET after the change): the
  // repeated hour makes it 12 h 30 min, not the 11 h 30 min of the wall clock.
  assert.match(later[1].message, /gate closure 12:00 Berlin in 12 h 30 min\.$/);
});

Deno.test("attention: a healthy evening — good news first, PV parks not yet due grouped as information", () => {
  // Tue 24 Nov 19:47 Berlin: today and tomorrow confirmed; the parks' forecasts of 26–30 Nov
  // are due only at 14:30 Berlin the day before each.
  const c = new FakeClock(Date.parse("2026-11-24T18:47:00Z"));
  const due = (day: string) => {
    const [y, m, d] = day.split("-").map(Number);
    return new Date(Date.UTC(y, m - 1, d - 1, 13, 30)).toISOString(); // 14:30 CET the day before
  };
  const day = (name: string, missing: number) => {
    const s = state(name, 1, 1);
    s.steps.aggregated = rec(1, undefined, {
      market_locations: 400,
      missing_forecast: missing,
      missing_energy: { expected_mwh: 40, missing_mwh: 0, unknown_locations: missing },
    });
    return {
      ...view(s, schedules(["confirmed", "confirmed", "confirmed", "confirmed"]), c.now()),
      forecasts_due: due(name),
    };
  };
  const future = ["2026-11-26", "2026-11-27", "2026-11-28", "2026-11-29", "2026-11-30"];
  const days = [day("2026-11-24", 0), day("2026-11-25", 0), ...future.map((d) => day(d, 20))];
  const items = attention({ days, orchestrator: running, nowMs: c.now() });
  assert.deepEqual(items.map((i) => `${i.code}:${i.level}`), [
    "all_confirmed:ok",
    "missing_forecasts:info",
  ]);
  assert.deepEqual(items[0].days, ["2026-11-24", "2026-11-25"]);
  assert.match(
    items[0].message,
    /^All schedules for today \(Tue 24 Nov\) and tomorrow \(Wed 25 Nov\) are confirmed — today: schedule v1 in 4 of 4 areas \(aggregate v1\); tomorrow: schedule v1 /,
  );
  assert.deepEqual(items[1].days, future);
  assert.equal(
    items[1].message,
    "20 market locations without load profile have no forecast in the latest aggregates for " +
      "Thu 26 Nov – Mon 30 Nov (5 days). Due the day before each, the first 14:30 Berlin tomorrow.",
  );
  // From 14:30 the day before, a missing forecast is a warning, ahead of the good news; the
  // days not due yet stay one line of information.
  const late = [day("2026-11-24", 0), day("2026-11-25", 20), ...future.map((d) => day(d, 20))];
  const warned = attention({ days: late, orchestrator: running, nowMs: c.now() });
  assert.deepEqual(warned.map((i) => `${i.code}:${i.level}:${i.delivery_day}`), [
    "missing_forecasts:warn:2026-11-25",
    "all_confirmed:ok:2026-11-24",
    "missing_forecasts:info:2026-11-26",
  ]);
  assert.match(warned[0].message, /^Tomorrow \(Wed 25 Nov\): 20 market locations \(4\.8 % of/);
});
