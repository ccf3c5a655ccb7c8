import assert from "node:assert/strict";
import { eicCheckCharacter, eicProblem, isValidEic } from "../../lib/domain/eic.ts";
import { isValidMaloId, maloCheckDigit, maloProblem } from "../../lib/domain/malo.ts";

Deno.test("EIC: the German control areas and DE-LU are valid; a wrong check character is not", () => {
  for (
    const eic of [
      "10YDE-RWENET---I",
      "10YDE-EON------1",
      "10YDE-ENBW-----N",
      "10YDE-VE-------2",
      "10Y1001A1001A82H",
    ]
  ) assert.ok(isValidEic(eic), eic);
  // Other published control areas (ENTSO-E EIC list) pass the same algorithm.
  for (
    const eic of ["10YFR-RTE------C", "10YNL----------L", "10YAT-APG------L", "10YCH-SWISSGRIDZ"]
  ) {
    assert.ok(isValidEic(eic), eic);
  }
  assert.equal(eicProblem("10YDE-RWENET---J"), "check character should be I, not J");
  assert.match(eicProblem("10ydE-RWENET---I")!, /16 characters/);
  assert.match(eicProblem("10YDE-RWENET--I")!, /16 characters/);
  assert.equal(eicCheckCharacter("10YDE-VE-------"), "2");
});

Deno.test("MaLo-ID: BDEW check digit (not Luhn)", () => {
  assert.ok(isValidMaloId("51238696781"));
  assert.ok(isValidMaloId("41373559241"));
  assert.equal(maloProblem("41373559240"), "check digit should be 1, not 0");
  assert.match(maloProblem("01373559241")!, /does not start with 0/);
  assert.match(maloProblem("4137355924")!, /11 digits/);
  assert.match(maloProblem("4137355924a")!, /11 digits/);
  assert.equal(maloCheckDigit("5123869678"), 1);
});
