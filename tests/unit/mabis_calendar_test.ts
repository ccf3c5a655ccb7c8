/**
 * The MaBiS working days and dates of a delivery month (lib/domain/mabis_calendar.ts) against
 * dates counted by hand here from the calendar: weekends, every state's public holidays and 24 and
 * 31 December are no working days.
 */
import assert from "node:assert/strict";
import { isMabisWorkingDay, mabisDates } from "../../lib/domain/mabis_calendar.ts";

const day = (d: string) => Temporal.PlainDate.from(d);

Deno.test("MaBiS working days: weekends, any state's holiday, 24 and 31 December are none", () => {
  const no = [
    "2026-12-24", // Thursday: 24 December
    "2026-12-31", // Thursday: 31 December
    "2027-01-06", // Epiphany (BW, BY, ST) counts nationwide
    "2026-11-18", // Repentance Day (SN)
    "2027-03-08", // International Women's Day (BE, MV)
    "2026-10-31", // Saturday (Reformation Day anyway)
    "2027-05-27", // Corpus Christi
    "2027-09-20", // World Children's Day (TH)
    "2027-03-26", // Good Friday
  ];
  for (const d of no) assert.equal(isMabisWorkingDay(day(d)), false, d);
  for (const d of ["2026-12-23", "2026-12-28", "2027-01-07", "2027-03-09", "2026-11-17"]) {
    assert.equal(isMabisWorkingDay(day(d)), true, d);
  }
});

Deno.test("MaBiS dates of November 2026 and March 2027, counted by hand", () => {
  // December 2026: 1–4 (4), 7–11 (9), 14–18 (14), 21–23 (17), 24–27 none, 28 (18), 29, 30 (20);
  // January 2027: 1 New Year, 4, 5 (22), 6 Epiphany, 7, 8 (24), 11–15 (29), 18–22 (34),
  // 25–29 (39), February 1, 2, 3 (42). Correction phase: to the end of June 2027.
  assert.deepEqual(mabisDates("2026-11"), {
    preliminary_sum: "2026-12-28",
    main_settlement_end: "2027-01-15",
    final_sum: "2027-02-03",
    correction_end: "2027-06-30",
  });
  // April 2027: 1, 2 (2), 5–9 (7), 12–16 (12), 19–23 (17), 26 (18), 27–30 (22); May: 3, 4, 5 (25),
  // 6 Ascension, 7 (26), 10, 11, 12 (29), 13, 14 (31), 17 Whit Monday, 18–21 (35), 24–26 (38),
  // 27 Corpus Christi, 28 (39), 31 (40), June 1, 2 (42).
  assert.deepEqual(mabisDates("2027-03"), {
    preliminary_sum: "2027-04-26",
    main_settlement_end: "2027-05-12",
    final_sum: "2027-06-02",
    correction_end: "2027-10-31",
  });
});
