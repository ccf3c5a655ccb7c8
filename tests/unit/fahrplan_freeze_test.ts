/**
 * Frozen quarter-hours (docs/intraday.md, "Frozen quarter-hours"): a version's quarter-hours
 * inside the lead time carry the quantities of the schedule the TSO has, and
 * `validateSchedule` refuses any document that changes one; the message version stops at 999.
 */
import assert from "node:assert/strict";
import { quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { ScheduleInvalid } from "../../lib/domain/errors.ts";
import { buildSchedule, validateSchedule } from "../../lib/fahrplan/document.ts";
import { scheduleVersion } from "../../lib/fahrplan/versions.ts";
import { openChange } from "../../lib/pipeline/schedule_documents.ts";
import { KEYS } from "../../lib/store/keys.ts";
import { scheduleInput } from "../support/fahrplan.ts";

for (const day of ["2027-03-28", "2026-10-25"]) {
  Deno.test(`freeze: frozen positions carry the reference, open ones the new quantities (${day})`, () => {
    const n = quarterHourCount(day);
    const reference = Array.from({ length: n }, (_, i) => (i % 2 ? -2.5 : 1.25));
    const input = { ...scheduleInput(day, 2), frozen: { count: 10, reference } };
    const doc = buildSchedule(input);
    assert.equal(doc.purchase.length, n);
    assert.deepEqual(doc.purchase.slice(0, 10), reference.slice(0, 10).map((v) => Math.max(v, 0)));
    assert.deepEqual(doc.sale.slice(0, 10), reference.slice(0, 10).map((v) => Math.max(-v, 0)));
    const plain = buildSchedule(scheduleInput(day, 2));
    assert.deepEqual(doc.purchase.slice(10), plain.purchase.slice(10));
    assert.deepEqual(validateSchedule(doc), []);
    // A document that changes a frozen quarter-hour never leaves: named, with the position.
    const tampered = { ...doc, purchase: [...doc.purchase] };
    tampered.purchase[4] = 9.999;
    const problems = validateSchedule(tampered);
    assert.equal(problems.length, 1);
    assert.match(
      problems[0],
      /1 frozen quarter-hour would change, first position 5 \(starting .*Z, inside the lead time\): purchase 9\.999/,
    );
    // No reference (nothing sent, or everything rejected): frozen quarter-hours carry 0.
    const zero = buildSchedule({ ...scheduleInput(day, 1), frozen: { count: 3, reference: [] } });
    assert.deepEqual([...zero.purchase.slice(0, 3), ...zero.sale.slice(0, 3)], [0, 0, 0, 0, 0, 0]);
  });
}

Deno.test("freeze: the open change is measured only on open quarter-hours, in the documents' 3 decimals", () => {
  const ref = [1, 1, 1, 1];
  assert.equal(openChange([5, 5, 1, 1], ref, 2), 0); // the changed ones are frozen
  assert.equal(openChange([5, 5, 1, 1.0004], ref, 2), 0); // below the documents' resolution
  assert.equal(openChange([5, 5, 1, 1.0006], ref, 2), 0.001);
  assert.equal(openChange([0, 0, 0, -2], [], 0), 2); // no reference: against 0
});

Deno.test("versions: the 1000th version is refused in words, nothing stored", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const key = KEYS.scheduleVersion("2026-11-23", "10YDE-RWENET---I");
    await kv.set(key, { message_version: 999, aggregate_version: 4, created_at: "x" });
    await assert.rejects(
      () => scheduleVersion(kv, "2026-11-23", "10YDE-RWENET---I", 5, 0),
      (e: Error) =>
        e instanceof ScheduleInvalid &&
        /already has 999 versions, the most the format allows/.test(e.message),
    );
    assert.equal((await kv.get<{ message_version: number }>(key)).value?.message_version, 999);
    // The stored version of the same aggregate is still handed out (a resend).
    assert.equal(
      (await scheduleVersion(kv, "2026-11-23", "10YDE-RWENET---I", 4, 0)).message_version,
      999,
    );
    // A rejected version is never reused: the same aggregate gets the next one.
    await kv.set(key, { message_version: 3, aggregate_version: 4, created_at: "x" });
    assert.equal(
      (await scheduleVersion(kv, "2026-11-23", "10YDE-RWENET---I", 4, 0, 3)).message_version,
      4,
    );
  } finally {
    kv.close();
  }
});
