import assert from "node:assert/strict";
import {
  deliveryDay,
  InvalidDeliveryDayError,
  localDayOf,
  nextOpenDay,
} from "../../lib/domain/delivery_day.ts";

Deno.test("delivery day: 96 quarter-hours on a winter and a summer day", () => {
  const winter = deliveryDay("2026-01-15");
  assert.equal(winter.quarterHours.length, 96);
  assert.equal(winter.start.toString(), "2026-01-14T23:00:00Z");
  assert.equal(winter.end.toString(), "2026-01-15T23:00:00Z");
  assert.equal(winter.gateClosure.toString(), "2026-01-14T11:00:00Z");
  const summer = deliveryDay("2026-07-01");
  assert.equal(summer.quarterHours.length, 96);
  assert.equal(summer.start.toString(), "2026-06-30T22:00:00Z");
  assert.equal(summer.gateClosure.toString(), "2026-06-30T10:00:00Z");
});

Deno.test("delivery day: 2026-03-29 has 92 quarter-hours; 02:00–03:00 local does not exist", () => {
  const d = deliveryDay("2026-03-29");
  assert.equal(d.quarterHours.length, 92);
  assert.equal(d.start.toString(), "2026-03-28T23:00:00Z");
  assert.equal(d.end.toString(), "2026-03-29T22:00:00Z");
  // 8th quarter-hour is 01:45 local (00:45Z), the 9th is 03:00 local CEST (01:00Z).
  assert.equal(d.quarterHours[7].toString(), "2026-03-29T00:45:00Z");
  assert.equal(d.quarterHours[8].toString(), "2026-03-29T01:00:00Z");
  assert.equal(
    d.quarterHours[8].toZonedDateTimeISO("Europe/Berlin").toPlainTime().toString(),
    "03:00:00",
  );
  // Gate closure the day before is still in winter time.
  assert.equal(d.gateClosure.toString(), "2026-03-28T11:00:00Z");
});

Deno.test("delivery day: 2026-10-25 has 100 quarter-hours; 02:00–03:00 local happens twice", () => {
  const d = deliveryDay("2026-10-25");
  assert.equal(d.quarterHours.length, 100);
  assert.equal(d.start.toString(), "2026-10-24T22:00:00Z");
  assert.equal(d.end.toString(), "2026-10-25T23:00:00Z");
  const local = d.quarterHours.map((q) =>
    q.toZonedDateTimeISO("Europe/Berlin").toPlainTime().toString().slice(0, 5)
  );
  assert.equal(local.filter((t) => t === "02:00").length, 2);
  assert.equal(d.gateClosure.toString(), "2026-10-24T10:00:00Z");
});

Deno.test("delivery day: configurable gate closure; bad dates refused", () => {
  assert.equal(deliveryDay("2026-01-15", "09:30").gateClosure.toString(), "2026-01-14T08:30:00Z");
  // Gate closure on a clock-change day itself: 12:00 CEST after spring, 12:00 CET after autumn.
  assert.equal(deliveryDay("2026-03-30").gateClosure.toString(), "2026-03-29T10:00:00Z");
  assert.equal(deliveryDay("2026-10-26").gateClosure.toString(), "2026-10-25T11:00:00Z");
  assert.throws(() => deliveryDay("2026-01-15", "25:00"), RangeError);
  for (const bad of ["2026-02-30", "2026-1-5", "tomorrow", "2026-13-01", ""]) {
    assert.throws(() => deliveryDay(bad), InvalidDeliveryDayError, bad);
  }
});

Deno.test("next open day: tomorrow before gate closure, the day after from then on", () => {
  assert.equal(nextOpenDay(Date.parse("2026-11-22T10:59:00Z")), "2026-11-23");
  assert.equal(nextOpenDay(Date.parse("2026-11-22T11:00:00Z")), "2026-11-24");
  assert.equal(localDayOf(Date.parse("2026-11-22T23:30:00Z")), "2026-11-23");
});

Deno.test("delivery day: memoized per (day, gate closure), frozen, invalid input throws every time", () => {
  const a = deliveryDay("2026-11-24");
  assert.equal(deliveryDay("2026-11-24"), a, "the same object for the same day");
  assert.equal(deliveryDay("2026-11-24", "12:00"), a, "12:00 is the default");
  assert.ok(Object.isFrozen(a));
  assert.ok(Object.isFrozen(a.quarterHours));
  assert.throws(() => (a.quarterHours as Temporal.Instant[]).push(a.start), TypeError);
  assert.throws(() => ((a as { day: string }).day = "2026-11-25"), TypeError);
  const early = deliveryDay("2026-11-24", "09:30");
  assert.notEqual(early, a);
  assert.equal(early.gateClosure.toString(), "2026-11-23T08:30:00Z");
  assert.equal(a.gateClosure.toString(), "2026-11-23T11:00:00Z");
  assert.equal(early.quarterHours.length, 96);
  for (let i = 0; i < 2; i++) {
    assert.throws(() => deliveryDay("2026-02-30"), InvalidDeliveryDayError);
    assert.throws(() => deliveryDay("2026-11-24", "25:00"), RangeError);
  }
  // Bounded: many days later the first is built afresh, equal in value.
  for (let i = 1; i <= 600; i++) {
    deliveryDay(
      `2027-01-01`,
      `${String(i % 24).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}`,
    );
  }
  const again = deliveryDay("2026-11-24");
  assert.deepEqual(
    again.quarterHours.map((q) => q.toString()),
    a.quarterHours.map((q) => q.toString()),
  );
});
