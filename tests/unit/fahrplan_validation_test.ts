/**
 * A schedule may leave only when it keeps the rules (docs/fahrplan.md;
 * lib/fahrplan/document.ts): each broken rule is named in a sentence, all of them at once, and
 * rendering refuses with ERR_SCHEDULE_INVALID.
 */
import assert from "node:assert/strict";
import { ScheduleInvalid } from "../../lib/domain/errors.ts";
import {
  buildSchedule,
  type ScheduleDocument,
  validateSchedule,
} from "../../lib/fahrplan/document.ts";
import { renderCim, renderEss } from "../../lib/fahrplan/render.ts";
import { PARTIES, scheduleInput } from "../support/fahrplan.ts";

const good = () => buildSchedule(scheduleInput("2026-11-24"));

function refusedWith(doc: ScheduleDocument, problems: string[]) {
  assert.deepEqual(validateSchedule(doc), problems);
  for (const render of [renderEss, renderCim]) {
    assert.throws(() => render(doc), (err: unknown) => {
      assert.ok(err instanceof ScheduleInvalid);
      assert.equal(err.code, "ERR_SCHEDULE_INVALID");
      assert.equal(err.outcome, "refused");
      assert.deepEqual(err.problems, problems);
      assert.equal(err.message, `The schedule may not be sent: ${problems.join("; ")}.`);
      return true;
    });
  }
}

Deno.test("a good schedule has no problem", () => {
  assert.deepEqual(validateSchedule(good()), []);
  for (const day of ["2027-03-28", "2026-10-25"]) {
    assert.deepEqual(validateSchedule(buildSchedule(scheduleInput(day))), []);
  }
});

Deno.test("parties not configured are named", () => {
  refusedWith(
    buildSchedule({ ...scheduleInput("2026-11-24"), senderEic: "", counterpartyEic: "" }),
    ["the sender EIC is not configured", "the counterparty EIC is not configured"],
  );
  refusedWith(buildSchedule({ ...scheduleInput("2026-11-24"), balancingGroup: "" }), [
    "the balancing group is not configured",
  ]);
});

Deno.test("a control area without a known TSO has no receiver", () => {
  refusedWith(buildSchedule({ ...scheduleInput("2026-11-24"), controlArea: "10YAT-APG------L" }), [
    "the receiver (the TSO of the control area) is not configured",
  ]);
});

Deno.test("a wrong EIC check character is named for each party and the area", () => {
  refusedWith(
    buildSchedule({
      ...scheduleInput("2026-11-24"),
      balancingGroup: "11X0-0000-0123-P",
      tsoOverrides: { "10YDE-RWENET---I": "10XDE-RWENET---X" },
    }),
    [
      "the receiver (the TSO of the control area) 10XDE-RWENET---X is not a valid EIC: check character should be W, not X",
      "the balancing group 11X0-0000-0123-P is not a valid EIC: check character should be O, not P",
    ],
  );
  refusedWith({ ...good(), controlArea: "10YDE-RWENET" }, [
    "the control area 10YDE-RWENET is not a valid EIC: an EIC has 16 characters of 0-9, A-Z and -",
  ]);
  refusedWith({ ...good(), sender: "11X0-1111-0123-n" }, [
    `the sender EIC 11X0-1111-0123-n is not a valid EIC: an EIC has 16 characters of 0-9, A-Z and -`,
  ]);
  assert.equal(PARTIES.sender, "11X0-1111-0123-N");
});

Deno.test("as many positions as the day has quarter-hours", () => {
  // 96 values for the 92-quarter-hour day of the spring clock change.
  refusedWith(buildSchedule({ ...scheduleInput("2027-03-28"), mw: Array(96).fill(1) }), [
    "the purchase has 96 positions; delivery day 2027-03-28 has 92 quarter-hours",
    "the sale has 96 positions; delivery day 2027-03-28 has 92 quarter-hours",
  ]);
  refusedWith(buildSchedule({ ...scheduleInput("2026-10-25"), mw: Array(96).fill(-1) }), [
    "the purchase has 96 positions; delivery day 2026-10-25 has 100 quarter-hours",
    "the sale has 96 positions; delivery day 2026-10-25 has 100 quarter-hours",
  ]);
});

Deno.test("no negative or non-finite quantity", () => {
  const doc = good();
  doc.sale[3] = -0.5;
  doc.purchase[10] = NaN;
  refusedWith(doc, [
    "the purchase has quantity NaN at position 11; quantities are MW ≥ 0",
    "the sale has quantity -0.5 at position 4; quantities are MW ≥ 0",
  ]);
  refusedWith(buildSchedule({ ...scheduleInput("2026-11-24"), mw: Array(96).fill(Infinity) }), [
    "the purchase has quantity Infinity at position 1; quantities are MW ≥ 0",
  ]);
});

Deno.test("a version from 1 to 999", () => {
  for (const version of [0, -1, 1.5]) {
    refusedWith(buildSchedule(scheduleInput("2026-11-24", version)), [
      `the message version must be a whole number of at least 1, not ${version}`,
    ]);
  }
  refusedWith(buildSchedule(scheduleInput("2026-11-24", 1000)), [
    "the message version 1000 does not fit the 3 digits of the file name",
  ]);
  assert.deepEqual(validateSchedule(buildSchedule(scheduleInput("2026-11-24", 999))), []);
});

Deno.test("an identification longer than 35 characters", () => {
  refusedWith({ ...good(), messageId: "X".repeat(36) }, [
    "the message identification has 36 characters; at most 35",
  ]);
});

Deno.test("every problem at once", () => {
  const doc = buildSchedule({
    ...scheduleInput("2027-03-28", 0),
    senderEic: "",
    mw: [-1, 2],
  });
  assert.equal(validateSchedule(doc).length, 4);
});
