/**
 * Calendar rules of the BDEW standard load profiles (data/bdew/SOURCE.md, "Rules of use"):
 *
 * - Day type of a local date: working day (Mon-Fri), Saturday, Sunday. Public holidays use the
 *   Sunday profile; 24 Dec and 31 Dec use the Saturday profile unless they fall on a Sunday.
 * - Public holidays come from npm:date-holidays for a region `"DE"` (nationwide holidays only)
 *   or `"DE-BY"` (country-state: nationwide plus the state's holidays). Only holidays of type
 *   `public` count; `bank`/`observance`/`school` entries (e.g. Heiligabend, Buß- und Bettag
 *   outside Saxony) do not.
 * - Season of the 1999 profiles: winter 1 Nov - 20 Mar, summer 15 May - 14 Sep, transition
 *   otherwise. (The 2025 profiles are indexed by calendar month instead.)
 *
 * One `Holidays` instance is kept per region and the holiday dates per (region, year).
 * @module
 */
import Holidays from "date-holidays";
import type { DayType, Season } from "./calendar.ts";

export { DAY_TYPES, type DayType, type Season, SEASONS } from "./calendar.ts";

/** Holiday region used when none is given: nationwide German public holidays. */
export const DEFAULT_REGION = "DE";

/** Thrown for a holiday region that npm:date-holidays does not know. */
export class UnknownHolidayRegionError extends Error {
  readonly code = "ERR_SLP_REGION";
  constructor(region: string) {
    super(`"${region}" is not a holiday region (expected a country "DE" or country-state "DE-BY")`);
    this.name = "UnknownHolidayRegionError";
  }
}

const REGION_RE = /^([A-Za-z]{2})(?:-([A-Za-z0-9]{1,3}))?$/;
const instances = new Map<string, Holidays>();
const holidaysByYear = new Map<string, Map<number, ReadonlySet<string>>>();
let catalogue: Holidays | undefined;

/**
 * The `Holidays` instance of a region, created once per region.
 * @param region `"DE"` or `"DE-BY"` (case-insensitive)
 * @throws {UnknownHolidayRegionError} for a malformed region or one date-holidays does not know
 */
function holidaysOf(region: string): Holidays {
  const cached = instances.get(region);
  if (cached) return cached;
  const m = REGION_RE.exec(region);
  if (!m) throw new UnknownHolidayRegionError(region);
  const country = m[1].toUpperCase();
  const state = m[2]?.toUpperCase();
  catalogue ??= new Holidays();
  // date-holidays silently accepts unknown states, so check against its catalogue first.
  if (!(country in (catalogue.getCountries() ?? {}))) throw new UnknownHolidayRegionError(region);
  if (state !== undefined && !(state in (catalogue.getStates(country) ?? {}))) {
    throw new UnknownHolidayRegionError(region);
  }
  const hd = state === undefined ? new Holidays(country) : new Holidays(country, state);
  instances.set(region, hd);
  return hd;
}

/**
 * Public holidays of a region in one year, as local dates `YYYY-MM-DD` (cached per region and
 * year). Only date-holidays entries of type `public` are included.
 * @throws {UnknownHolidayRegionError}
 */
export function publicHolidays(year: number, region: string = DEFAULT_REGION): ReadonlySet<string> {
  let years = holidaysByYear.get(region);
  const cached = years?.get(year);
  if (cached) return cached;
  const hd = holidaysOf(region);
  const dates = new Set<string>();
  for (const h of hd.getHolidays(year)) {
    if (h.type === "public") dates.add(h.date.slice(0, 10));
  }
  if (!years) holidaysByYear.set(region, years = new Map());
  years.set(year, dates);
  return dates;
}

/**
 * BDEW day type of a local date (SOURCE.md): Sunday and public holidays → `sunday`;
 * 24 Dec and 31 Dec → `saturday` (unless a Sunday); Saturday → `saturday`; else `workday`.
 * @param date the local date (Europe/Berlin) of the delivery day
 * @param region holiday region, `"DE"` (default) or `"DE-BY"`
 * @throws {UnknownHolidayRegionError}
 */
export function dayTypeOf(date: Temporal.PlainDate, region: string = DEFAULT_REGION): DayType {
  if (date.dayOfWeek === 7) return "sunday";
  if (publicHolidays(date.year, region).has(date.toString())) return "sunday";
  if (date.month === 12 && (date.day === 24 || date.day === 31)) return "saturday";
  return date.dayOfWeek === 6 ? "saturday" : "workday";
}

/**
 * Season of the 1999 profiles (BDEW, SOURCE.md): winter 1 Nov - 20 Mar, summer 15 May - 14 Sep,
 * transition 21 Mar - 14 May and 15 Sep - 31 Oct.
 */
export function seasonOf(date: Temporal.PlainDate): Season {
  const md = date.month * 100 + date.day;
  if (md >= 1101 || md <= 320) return "winter";
  if (md >= 515 && md <= 914) return "summer";
  return "transition";
}
