/**
 * The simulated TSO's rules (docs/intraday.md, "TSO simulator"): a version not above the last one
 * and a change inside the lead time at receipt are rejected in words; between the TSO deadline and
 * 18:00 the day before a version is confirmed only from 18:00. Read from real rendered ESS and CIM.
 */
import assert from "node:assert/strict";
import { XMLParser } from "fast-xml-parser";
import { confirmFrom, judge, receivedSchedule, type TsoMemory } from "../../dev/tso_rules.ts";
import { buildSchedule } from "../../lib/fahrplan/document.ts";
import { renderSchedule } from "../../lib/fahrplan/render.ts";
import { scheduleInput } from "../support/fahrplan.ts";

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
});
const DAY = "2026-11-25"; // starts 2026-11-24T23:00Z
const at = (iso: string) => Date.parse(iso);

for (const format of ["ess", "cim"] as const) {
  Deno.test(`TSO rules (${format}): version order and the lead time`, () => {
    const doc = (version: number, mw: number[]) =>
      receivedSchedule(
        parser.parse(renderSchedule(buildSchedule({ ...scheduleInput(DAY, version), mw }), format)),
      )!;
    const memory: TsoMemory = new Map();
    const flat = (v: number) => Array(96).fill(v);
    assert.equal(judge(memory, doc(1, flat(1)), at("2026-11-24T08:00:00Z"), 15), null);
    assert.equal(doc(1, flat(1)).qty[0].length, 96);
    // 09:07 Berlin on the day: the 09:00 and 09:15 quarter-hours are inside the lead time.
    const now = at("2026-11-25T08:07:00Z");
    const changedAt = (i: number) => flat(1).map((v, k) => (k === i ? 2 : v));
    assert.match(
      judge(memory, doc(2, changedAt(37)), now, 15)!,
      /position 38 \(from 2026-11-25T08:15:00Z\) changes inside the lead time of 15 minutes \(1 to 2\)/,
    );
    assert.equal(judge(memory, doc(3, changedAt(38)), now, 15), null, "09:30 is open");
    assert.match(
      judge(memory, doc(3, flat(1)), now, 15)!,
      /version 3 is not above the last version 3/,
    );
    // The rejected ones changed nothing: the accepted version 3 is what the next is compared with.
    assert.equal(judge(memory, doc(4, changedAt(38)), now, 15), null);
  });
}

Deno.test("TSO rules: between 14:30 and 18:00 the day before, confirmed from 18:00", () => {
  const start = Temporal.Instant.from("2026-11-24T23:00:00Z");
  assert.equal(confirmFrom(start, at("2026-11-24T13:29:00Z")), at("2026-11-24T13:29:00Z"));
  assert.equal(confirmFrom(start, at("2026-11-24T15:00:00Z")), at("2026-11-24T17:00:00Z"));
  assert.equal(confirmFrom(start, at("2026-11-24T17:00:00Z")), at("2026-11-24T17:00:00Z"));
});

for (const format of ["ess", "cim"] as const) {
  Deno.test(`TSO rules (${format}): after delivery a changed version is a correction, until Amprion's deadline`, () => {
    // Fri 27 Nov 2026 in Amprion: corrections until Mon 30 Nov 16:00 Berlin (15:00 UTC).
    const day = "2026-11-27";
    const doc = (version: number, mw: number) =>
      receivedSchedule(parser.parse(renderSchedule(
        buildSchedule({ ...scheduleInput(day, version), mw: Array(96).fill(mw) }),
        format,
      )))!;
    assert.equal(doc(1, 1).receiver, "10XDE-RWENET---W");
    assert.equal(doc(1, 1).end?.toString(), "2026-11-27T23:00:00Z");
    const memory: TsoMemory = new Map();
    assert.equal(judge(memory, doc(1, 1), at("2026-11-26T08:00:00Z"), 15), null);
    // During delivery every quarter-hour before 09:15 is inside the lead time.
    assert.match(judge(memory, doc(2, 2), at("2026-11-27T08:00:00Z"), 15)!, /lead time/);
    // After delivery, before the deadline: the whole day may change.
    assert.equal(judge(memory, doc(3, 2), at("2026-11-30T14:59:00Z"), 15), null);
    assert.match(
      judge(memory, doc(4, 3), at("2026-11-30T15:01:00Z"), 15)!,
      /post-delivery correction of 2026-11-27 received after the deadline Mon 30 Nov 2026 16:00 Berlin of Amprion/,
    );
  });
}
