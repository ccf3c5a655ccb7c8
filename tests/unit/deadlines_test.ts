/**
 * The deadline rules of a delivery day (docs/intraday.md): gate closure, TSO deadline, lead time
 * and the end of the day, in UTC, on 96-, 92- and 100-quarter-hour days.
 */
import assert from "node:assert/strict";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import {
  assertBeforeGateClosure,
  assertForecastOpen,
  assertScheduleOpen,
  frozenBefore,
  frozenCount,
  gateClosure,
  lastQuarterHourStart,
  schedulePhase,
  tsoDeadline,
} from "../../lib/domain/deadlines.ts";
import { GateClosed } from "../../lib/domain/errors.ts";

const ms = (iso: string) => Date.parse(iso);

Deno.test("deadlines: gate closure and TSO deadline the day before, in Berlin time", () => {
  const d = deliveryDay("2027-03-28"); // 92 quarter-hours; the day before is still CET
  assert.equal(gateClosure(d, "12:00").toString(), "2027-03-27T11:00:00Z");
  assert.equal(tsoDeadline(d, "14:30").toString(), "2027-03-27T13:30:00Z");
  const a = deliveryDay("2026-10-26"); // the day before is the 100-quarter-hour day, CET at 14:30
  assert.equal(tsoDeadline(a, "14:30").toString(), "2026-10-25T13:30:00Z");
  assert.equal(schedulePhase(d, ms("2027-03-27T13:29:59Z"), "14:30"), "day_ahead");
  assert.equal(schedulePhase(d, ms("2027-03-27T13:30:00Z"), "14:30"), "intraday");
  assert.throws(
    () => assertBeforeGateClosure(d, ms("2027-03-27T11:00:00Z"), "12:00", "nothing was sent"),
    (e: Error) =>
      e instanceof GateClosed && /12:00 Europe\/Berlin.*nothing was sent/.test(e.message),
  );
  assertBeforeGateClosure(d, ms("2027-03-27T10:59:59Z"), "12:00", "x");
});

Deno.test("deadlines: frozen quarter-hours start before sent_at + lead, DST-correct", () => {
  const d = deliveryDay("2027-03-28"); // 00:00 CET = 23:00Z; 03:00 CEST = 01:00Z
  assert.equal(frozenCount(d, ms("2027-03-27T13:00:00Z"), 15), 0);
  // 09:07 CEST = 07:07Z; + 15 min = 07:22Z: the quarter-hours before 09:30 CEST (07:30Z) frozen.
  assert.equal(frozenCount(d, ms("2027-03-28T07:07:00Z"), 15), 34); // 23:00Z–07:30Z: 8 h 30 min
  assert.equal(frozenBefore(d, ms("2027-03-28T07:07:00Z"), 15), "2027-03-28T07:30:00Z");
  const autumn = deliveryDay("2026-10-25"); // 100 quarter-hours, 02:00–03:00 twice
  // 02:52 CET (the second 02:xx hour) = 01:52Z; + 15 = 02:07Z: frozen before 03:15 CET = 02:15Z.
  assert.equal(frozenCount(autumn, ms("2026-10-25T01:52:00Z"), 15), 17); // 22:00Z–02:15Z: 4 h 15 min
  assert.equal(frozenBefore(autumn, ms("2026-10-25T01:52:00Z"), 15), "2026-10-25T02:15:00Z");
  // 21:52 CET = 20:52Z; + 15 = 21:07Z: frozen before 22:15 CET = 21:15Z, 93 of 100.
  assert.equal(frozenCount(autumn, ms("2026-10-25T20:52:00Z"), 15), 93);
  assert.equal(frozenCount(autumn, ms("2026-10-25T22:45:00Z"), 15), 100);
  assert.equal(frozenBefore(autumn, ms("2026-10-25T22:45:00Z"), 15), "2026-10-25T23:00:00Z");
});

Deno.test("deadlines: forecasts until the last quarter-hour starts; schedules while one is open", () => {
  const d = deliveryDay("2026-10-25");
  assert.equal(lastQuarterHourStart(d).toString(), "2026-10-25T22:45:00Z"); // 23:45 CET
  assertForecastOpen(d, ms("2026-10-25T22:44:59Z"), "x");
  assert.throws(
    () => assertForecastOpen(d, ms("2026-10-25T22:45:00Z"), "nothing was stored"),
    (e: Error) =>
      e instanceof GateClosed &&
      /last quarter-hour started at 2026-10-25T22:45:00Z \(23:45 Berlin \(\+01:00\)\); nothing was stored/
        .test(e.message),
  );
  assertScheduleOpen(d, ms("2026-10-25T22:29:59Z"), 15, "x"); // 23:45 still 15 min ahead
  assert.throws(
    () => assertScheduleOpen(d, ms("2026-10-25T22:30:01Z"), 15, "nothing was sent"),
    (e: Error) =>
      e instanceof GateClosed && /lead time of 15 minutes; nothing was sent/.test(e.message),
  );
});
