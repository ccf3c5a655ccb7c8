/**
 * The TSOs' calendars of post-delivery corrections (docs/post-delivery.md), as data with their
 * source. StromNZV § 5 (3): a schedule within one control area (balancing group ↔ counterparty)
 * may be changed after delivery until 16:00 of the working day after the delivery day; each TSO
 * publishes which days are working days for this:
 *
 * - **TenneT** (`10XDE-EON-NETZ-C`): Monday to Friday except public holidays, "a holiday in one
 *   federal state counts nationwide"; 24 and 31 December are working days (no statutory holiday);
 *   changes end "längstens jedoch bis zum dritten auf den Erfüllungstag folgenden Kalendertag" —
 *   TenneT publishes no clock time for that cap, so 16:00 of that day is taken (said in the rule).
 * - **Amprion** (`10XDE-RWENET---W`): Monday to Friday except its published list: New Year's Day,
 *   Epiphany, International Women's Day (8 March), Good Friday, Easter Monday, 1 May, Ascension
 *   Day, Whit Monday, Corpus Christi, Assumption Day, World Children's Day (20 September),
 *   3 October, Reformation Day, All Saints' Day, Repentance and Prayer Day, 24, 25, 26 and
 *   31 December.
 * - **50Hertz** (`10XDE-VE-TRANSMK`) and **TransnetBW** (`10XDE-ENBW--TNGX`) publish their own
 *   calendars, which this service does not hold: until their days are configured, the statutory
 *   rule — Monday to Friday except the public holidays of every federal state — labelled as such.
 *   So is any other TSO (one configured in `tso_party_eics`).
 *
 * Weekends are never working days. Extra non-working days per TSO come from the runtime field
 * `tso_non_working_days` (lib/config/post_delivery_fields.ts); the caller passes them in.
 *
 * The statutory holidays are the states' holiday laws (Feiertagsgesetze of the 16 states; German
 * Unity Day: Einigungsvertrag Art. 2 (2)), listed below with the states that keep each one. Movable
 * feasts are computed, never listed per year: Easter by the Gregorian computus (Meeus/Jones/
 * Butcher), Repentance and Prayer Day as the Wednesday before 23 November. Holidays that always
 * fall on a Sunday (Easter Sunday, Whit Sunday in Brandenburg) are left out: a Sunday is no working
 * day anyway. tests/unit/tso_calendars_test.ts checks the list against npm:date-holidays.
 * @module
 */
import { MARKET_TIME_ZONE, parseDay } from "./delivery_day.ts";
import { GERMAN_STATES } from "./holiday_regions.ts";

/** How a holiday's date is found in a year. */
export type HolidayDate =
  | { month: number; day: number }
  | { easter: number }
  | { wednesdayBefore: { month: number; day: number } };

/** One holiday: its English name, its date rule and the states whose law keeps it. */
export interface Holiday {
  name: string;
  date: HolidayDate;
  /** State codes (ISO 3166-2:DE without `DE-`) where it is a public holiday by law. */
  states: readonly string[];
  /** First year it is a public holiday in any state (absent: long before this service). */
  since?: number;
  /** A holiday declared for this one year only (Berlin's anniversaries). */
  only?: number;
}

const ALL = GERMAN_STATES;

const fixed = (month: number, day: number): HolidayDate => ({ month, day });
const easter = (offset: number): HolidayDate => ({ easter: offset });

/**
 * The public holidays of the German states on days that can be weekdays. Corpus Christi is also
 * kept in parts of Saxony and Thuringia, Assumption Day in the mostly Catholic communities of
 * Bavaria: both are listed by their state-wide states, which makes no difference to a rule that
 * counts every state.
 */
export const STATE_HOLIDAYS: readonly Holiday[] = [
  { name: "New Year's Day", date: fixed(1, 1), states: ALL },
  { name: "Epiphany", date: fixed(1, 6), states: ["BW", "BY", "ST"] },
  // Berlin since 2019, Mecklenburg-Vorpommern since 2023.
  { name: "International Women's Day", date: fixed(3, 8), states: ["BE", "MV"], since: 2019 },
  { name: "Good Friday", date: easter(-2), states: ALL },
  { name: "Easter Monday", date: easter(1), states: ALL },
  { name: "Labour Day", date: fixed(5, 1), states: ALL },
  { name: "Ascension Day", date: easter(39), states: ALL },
  { name: "Whit Monday", date: easter(50), states: ALL },
  { name: "Corpus Christi", date: easter(60), states: ["BW", "BY", "HE", "NW", "RP", "SL"] },
  { name: "Assumption Day", date: fixed(8, 15), states: ["SL"] },
  { name: "World Children's Day", date: fixed(9, 20), states: ["TH"], since: 2019 },
  { name: "German Unity Day", date: fixed(10, 3), states: ALL },
  {
    name: "Reformation Day",
    date: fixed(10, 31),
    states: ["BB", "HB", "HH", "MV", "NI", "SH", "SN", "ST", "TH"],
  },
  { name: "All Saints' Day", date: fixed(11, 1), states: ["BW", "BY", "NW", "RP", "SL"] },
  {
    name: "Repentance and Prayer Day",
    date: { wednesdayBefore: { month: 11, day: 23 } },
    states: ["SN"],
  },
  { name: "Christmas Day", date: fixed(12, 25), states: ALL },
  { name: "Second Day of Christmas", date: fixed(12, 26), states: ALL },
  // Berlin's one-off holidays (Berliner Feiertagsgesetz): 80 years since the end of the war and
  // 75 years since the uprising of 17 June 1953.
  { name: "Liberation Day (80th anniversary)", date: fixed(5, 8), states: ["BE"], only: 2025 },
  {
    name: "Uprising of 17 June 1953 (75th anniversary)",
    date: fixed(6, 17),
    states: ["BE"],
    only: 2028,
  },
];

/**
 * Amprion's published list: the recurring statutory holidays above (not Berlin's one-off days,
 * which the list does not name), plus 24 and 31 December.
 */
const AMPRION_DAYS: readonly Holiday[] = [
  ...STATE_HOLIDAYS.filter((h) => h.only === undefined),
  { name: "Christmas Eve (24 December)", date: fixed(12, 24), states: [] },
  { name: "New Year's Eve (31 December)", date: fixed(12, 31), states: [] },
];

/** The working-day calendar of one TSO for post-delivery corrections. */
export interface TsoCalendar {
  /** The TSO's EIC (an X code). */
  tso: string;
  /** Short name, e.g. `TenneT TSO`. */
  name: string;
  /** `published`: the TSO's own rule; `statutory`: the fallback until its days are configured. */
  kind: "published" | "statutory";
  /** The days off besides weekends (and configured days). */
  holidays: readonly Holiday[];
  /** The window ends at the latest on this calendar day after delivery; `null`: no cap. */
  capDays: number | null;
  /** The calendar in words. */
  rule: string;
}

const STATUTORY_WORDS =
  "Monday to Friday except the public holidays of every federal state (a holiday in any state counts for the whole control area)";

/** Built-in calendars by TSO EIC. */
const CALENDARS: Readonly<Record<string, Omit<TsoCalendar, "tso">>> = {
  "10XDE-EON-NETZ-C": {
    name: "TenneT TSO",
    kind: "published",
    holidays: STATE_HOLIDAYS,
    capDays: 3,
    rule:
      "TenneT's rule: working days are Monday to Friday except public holidays, a holiday in one federal state counting nationwide; 24 and 31 December are working days; changes are accepted at the latest until the third calendar day after delivery (TenneT publishes no clock time for that cap: 16:00 is taken)",
  },
  "10XDE-RWENET---W": {
    name: "Amprion",
    kind: "published",
    holidays: AMPRION_DAYS,
    capDays: null,
    rule:
      "Amprion's list: working days are Monday to Friday except New Year's Day, Epiphany, International Women's Day (8 March), Good Friday, Easter Monday, 1 May, Ascension Day, Whit Monday, Corpus Christi, Assumption Day, World Children's Day (20 September), 3 October, Reformation Day, All Saints' Day, Repentance and Prayer Day, 24, 25, 26 and 31 December",
  },
  "10XDE-VE-TRANSMK": {
    name: "50Hertz",
    kind: "statutory",
    holidays: STATE_HOLIDAYS,
    capDays: null,
    rule:
      `50Hertz publishes its own calendar, which this service does not hold; until its days are configured (tso_non_working_days), the statutory rule: ${STATUTORY_WORDS}`,
  },
  "10XDE-ENBW--TNGX": {
    name: "TransnetBW",
    kind: "statutory",
    holidays: STATE_HOLIDAYS,
    capDays: null,
    rule:
      `TransnetBW publishes its own calendar, which this service does not hold; until its days are configured (tso_non_working_days), the statutory rule: ${STATUTORY_WORDS}`,
  },
};

/** The EICs of the TSOs with a built-in calendar. */
export const CALENDAR_TSOS: readonly string[] = Object.keys(CALENDARS);

/**
 * The calendar of a TSO: the built-in one, or for any other TSO EIC the statutory rule, labelled
 * as such.
 */
export function tsoCalendar(tso: string): TsoCalendar {
  const known = CALENDARS[tso];
  if (known) return { tso, ...known };
  return {
    tso,
    name: tso,
    kind: "statutory",
    holidays: STATE_HOLIDAYS,
    capDays: null,
    rule:
      `no calendar of TSO ${tso} is held here; until its days are configured (tso_non_working_days), the statutory rule: ${STATUTORY_WORDS}`,
  };
}

/** Easter Sunday of `year` (Gregorian computus, Meeus/Jones/Butcher). */
export function easterSunday(year: number): Temporal.PlainDate {
  const a = year % 19, b = Math.floor(year / 100), c = year % 100;
  const d = Math.floor(b / 4), e = b % 4, f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4), k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return Temporal.PlainDate.from({ year, month, day });
}

/** The date of `h` in `year`. */
export function holidayDate(h: Holiday, year: number): Temporal.PlainDate {
  const r = h.date;
  if ("easter" in r) return easterSunday(year).add({ days: r.easter });
  if ("month" in r) return Temporal.PlainDate.from({ year, month: r.month, day: r.day });
  // The Wednesday (ISO day 3) strictly before the given date.
  const before = Temporal.PlainDate.from({ year, ...r.wednesdayBefore }).subtract({ days: 1 });
  return before.subtract({ days: (before.dayOfWeek - 3 + 7) % 7 });
}

/**
 * Why `date` is no working day at `cal`'s TSO: a holiday's name (also on a weekend: the more
 * telling reason), `weekend` or `configured non-working day`; `null` for a working day.
 * @param extra the TSO's configured non-working days (`YYYY-MM-DD`)
 */
export function nonWorkingReason(
  cal: TsoCalendar,
  date: Temporal.PlainDate,
  extra: readonly string[] = [],
): string | null {
  for (const h of cal.holidays) {
    if (h.since !== undefined && date.year < h.since) continue;
    if (h.only !== undefined && date.year !== h.only) continue;
    if (Temporal.PlainDate.compare(holidayDate(h, date.year), date) === 0) return h.name;
  }
  if (date.dayOfWeek >= 6) return "weekend";
  return extra.includes(date.toString()) ? "configured non-working day" : null;
}

/** `Mon 30 Nov 2026` for a date (English, as the console writes days). */
export function dateWords(date: Temporal.PlainDate): string {
  const wd = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][date.dayOfWeek - 1];
  const mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  return `${wd} ${date.day} ${mon[date.month - 1]} ${date.year}`;
}

/** The end of the post-delivery correction window of one delivery day at one TSO. */
export interface CorrectionDeadline {
  tso: string;
  tso_name: string;
  calendar: "published" | "statutory";
  /** The instant the window closes (16:00 Berlin of `date`). */
  deadline: Temporal.Instant;
  /** Its local date, `YYYY-MM-DD` (Europe/Berlin). */
  date: string;
  /** Berlin local time in words, e.g. `Mon 30 Nov 2026 16:00`. */
  local: string;
  /** The first working day after delivery (`YYYY-MM-DD`). */
  working_day: string;
  /** True when TenneT's cap (third calendar day) came before the next working day. */
  capped: boolean;
  /** The days between delivery and `working_day` that are not working days, with why. */
  skipped: { date: string; reason: string }[];
  /** The rule that set the deadline, in words (StromNZV § 5 (3) and the TSO's calendar). */
  rule: string;
}

/** Local clock time of every post-delivery deadline (StromNZV § 5 (3)). */
export const CORRECTION_LOCAL_TIME = "16:00";

/**
 * The post-delivery deadline of delivery day `day` (`YYYY-MM-DD`, Berlin) at TSO `tso`: 16:00
 * Berlin of the first working day after it — at TenneT no later than the third calendar day
 * after it — by the TSO's calendar plus `extra` non-working days (docs/post-delivery.md).
 * @throws {import("./delivery_day.ts").InvalidDeliveryDayError} for a malformed day
 */
export function correctionDeadline(
  tso: string,
  day: string,
  extra: readonly string[] = [],
): CorrectionDeadline {
  const cal = tsoCalendar(tso);
  const delivered = parseDay(day);
  const skipped: { date: string; reason: string }[] = [];
  let next = delivered.add({ days: 1 });
  // Bounded: the configured days are at most a few hundred.
  for (let n = 0; n < 1000; n++) {
    const why = nonWorkingReason(cal, next, extra);
    if (!why) break;
    skipped.push({ date: next.toString(), reason: why });
    next = next.add({ days: 1 });
  }
  const cap = cal.capDays === null ? null : delivered.add({ days: cal.capDays });
  const capped = cap !== null && Temporal.PlainDate.compare(cap, next) < 0;
  const date = capped ? cap! : next;
  const deadline = date.toZonedDateTime({
    timeZone: MARKET_TIME_ZONE,
    plainTime: Temporal.PlainTime.from(CORRECTION_LOCAL_TIME),
  }).toInstant();
  const local = `${dateWords(date)} ${CORRECTION_LOCAL_TIME}`;
  const because = skipped.length
    ? ` (${skipped.map((s) => `${dateWords(parseDay(s.date))}: ${s.reason}`).join(", ")})`
    : "";
  const configured = extra.length ? `, plus ${extra.length} configured non-working days` : "";
  const when = capped
    ? `the next working day would be ${
      dateWords(next)
    }${because}, but the third calendar day after delivery caps it: until ${local} Berlin (no clock time is published for the cap; 16:00 is taken)`
    : `the next working day is ${dateWords(next)}${because}: until ${local} Berlin`;
  return {
    tso,
    tso_name: cal.name,
    calendar: cal.kind,
    deadline,
    date: date.toString(),
    local,
    working_day: next.toString(),
    capped,
    skipped,
    rule:
      `StromNZV § 5 (3): a schedule within the control area may be changed after delivery until 16:00 of the working day after the delivery day. ${cal.rule}${configured}. For ${
        dateWords(delivered)
      } ${when}.`,
  };
}
