/**
 * The holiday regions a market location may name (lib/domain/holiday_regions.ts) against the
 * installed npm:date-holidays: its list of German states is the service's, and every region the
 * service accepts is one date-holidays computes holidays for.
 */
import assert from "node:assert/strict";
import Holidays from "date-holidays";
import { GERMAN_STATES, holidayRegionProblem } from "../../lib/domain/holiday_regions.ts";
import { publicHolidays } from "../../lib/domain/slp/day_type.ts";

Deno.test("holiday regions: DE and the states of date-holidays' Germany, nothing else", () => {
  assert.deepEqual([...GERMAN_STATES].sort(), Object.keys(new Holidays().getStates("DE")).sort());
  assert.equal(holidayRegionProblem("DE"), undefined);
  for (const s of GERMAN_STATES) {
    assert.equal(holidayRegionProblem(`DE-${s}`), undefined, s);
    assert.ok(publicHolidays(2026, `DE-${s}`).size >= 9, `DE-${s} has its holidays`);
  }
  // Fronleichnam (4 June 2026) is a holiday in NW, not in Berlin.
  assert.ok(publicHolidays(2026, "DE-NW").has("2026-06-04"));
  assert.ok(!publicHolidays(2026, "DE-BE").has("2026-06-04"));
  for (const bad of ["DE-XX", "de-nw", "DE-NRW", "AT", "DE-", "NW", ""]) {
    assert.match(holidayRegionProblem(bad)!, /expected DE or DE-<state> with a state of BB, /, bad);
  }
});
