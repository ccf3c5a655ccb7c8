/**
 * The deadlines of MaBiS for a delivery month (docs/settlement.md, "Checking the settlement data"):
 * BNetzA "Marktregeln für die Durchführung der Bilanzkreisabrechnung Strom" (MaBiS, BK6-07-002 and
 * later determinations) count in **working days** after the month: Monday to Friday, except a day
 * that is a public holiday in any federal state (it counts nationwide) and 24 and 31 December
 * (the working-day definition of the BNetzA's market rules, GPKE and MaBiS alike). The holidays of
 * each state come from npm:date-holidays (type `public`).
 *
 * - the **preliminary** balancing-group sum: the 18th working day after the month;
 * - the end of the **main settlement**: the 29th working day;
 * - the **final** balancing-group sum: the 42nd working day;
 * - the end of the **correction phase**: the last day of the seventh month after the month.
 * @module
 */
import { GERMAN_STATES } from "./holiday_regions.ts";
import { publicHolidays } from "./slp/day_type.ts";

const nonWorking = new Map<number, ReadonlySet<string>>();

/** Public holidays of any state in `year`, plus 24 and 31 December, as `YYYY-MM-DD`. */
function holidaysOf(year: number): ReadonlySet<string> {
  let set = nonWorking.get(year);
  if (set) return set;
  const all = new Set<string>([`${year}-12-24`, `${year}-12-31`]);
  for (const state of GERMAN_STATES) {
    for (const d of publicHolidays(year, `DE-${state}`)) all.add(d);
  }
  nonWorking.set(year, set = all);
  return set;
}

/** True when `date` is a working day in the sense of MaBiS. */
export function isMabisWorkingDay(date: Temporal.PlainDate): boolean {
  return date.dayOfWeek <= 5 && !holidaysOf(date.year).has(date.toString());
}

/** The `n`-th MaBiS working day after the month `YYYY-MM` (n ≥ 1), `YYYY-MM-DD`. */
export function workingDayAfterMonth(month: string, n: number): string {
  let d = Temporal.PlainDate.from(`${month}-01`).add({ months: 1 });
  for (let k = 0;; d = d.add({ days: 1 })) {
    if (isMabisWorkingDay(d) && ++k === n) return d.toString();
  }
}

/** The MaBiS dates of a delivery month, local dates `YYYY-MM-DD`. */
export interface MabisDates {
  /** 18th working day after the month: the preliminary balancing-group sum. */
  preliminary_sum: string;
  /** 29th working day: the end of the main settlement. */
  main_settlement_end: string;
  /** 42nd working day: the final balancing-group sum. */
  final_sum: string;
  /** The last day of the seventh month after the month: the end of the correction phase. */
  correction_end: string;
}

/**
 * The MaBiS dates of the delivery month `YYYY-MM`.
 * @throws RangeError for a malformed month
 */
export function mabisDates(month: string): MabisDates {
  const first = Temporal.PlainDate.from(`${month}-01`);
  return {
    preliminary_sum: workingDayAfterMonth(month, 18),
    main_settlement_end: workingDayAfterMonth(month, 29),
    final_sum: workingDayAfterMonth(month, 42),
    correction_end: first.add({ months: 8 }).subtract({ days: 1 }).toString(),
  };
}
