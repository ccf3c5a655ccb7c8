/**
 * BDEW standard load profiles (Standardlastprofile) for delivery days (docs/domain.md, "Standard load profiles";
 * rules from data/bdew/SOURCE.md).
 *
 * Profiles: the 1999 profiles H0 (household), G0..G6 (commerce), L0..L2 (agriculture) and the
 * 2025 profiles H25, G25, L25, P25 (household with PV), S25 (household with storage).
 *
 * A profile shape is the load in kW per 1 kWh of annual energy for each real quarter-hour of a
 * delivery day; a forecast is the shape times the annual energy (kWh/a) of the market location.
 *
 * - Table day (SOURCE.md, BDEW): the day type of the local date (`dayTypeOf`: working day,
 *   Saturday, Sunday/public holiday of the region, 24/31 Dec as Saturday) and, for 1999
 *   profiles, the season (`seasonOf`) or, for 2025 profiles, the calendar month select 96 values.
 * - Units: 1999 tables hold average kW per 1,000 kWh/a (x 1e-3); 2025 tables hold kWh per
 *   quarter-hour per 1,000,000 kWh/a (x 4 / 1e6).
 * - Dynamisation (SOURCE.md, BDEW): H0, H25, P25 and S25 are multiplied by
 *   F(t) = -3.92e-10 t^4 + 3.2e-7 t^3 - 7.02e-5 t^2 + 2.1e-3 t + 1.24, t = day of the year
 *   (1..366). SOURCE.md lists the 2025 tables as undynamised values (as BDEW's 2025 documentation
 *   and demandlib treat them), so F is applied to them here.
 * - Clock changes: the tables have 96 values per local day, 00:00..23:45 wall-clock time. Each
 *   real quarter-hour of `deliveryDay(day).quarterHours` takes the table value of its own local
 *   wall-clock time in Europe/Berlin (not index arithmetic). So on the 92-quarter-hour day (last
 *   Sunday of March) the values of the skipped hour 02:00-03:00 are dropped, and on the
 *   100-quarter-hour day (last Sunday of October) the values of 02:00, 02:15, 02:30, 02:45 appear
 *   twice, in order (once for CEST, once for CET). The daily energy is therefore 23/25 hours'
 *   worth on those days, as the real day is.
 * - Rounding: none. Shapes and forecasts are full double precision; rounding belongs to the
 *   step that publishes or submits values.
 *
 * Shapes are cached per (code, day, region) (bounded, oldest entries evicted), so a forecast for
 * one market location costs one map lookup plus a scaling loop.
 *
 * @example
 * generateProfileForecast("H0", 3500, "2026-01-07").length; // 96 values, average kW
 * profileShape("G0", "2026-10-25", "DE-BY").length; // 100
 * @module
 */
import { deliveryDay, MARKET_TIME_ZONE, parseDay } from "../delivery_day.ts";
import { type DayType, dayTypeOf, DEFAULT_REGION, type Season, seasonOf } from "./day_type.ts";
import {
  loadSlpTables,
  type Profile1999,
  type Profile2025,
  PROFILES_1999,
  tableDay1999,
  tableDay2025,
} from "./tables.ts";
import { PROFILE_CODES, type ProfileCode } from "./profile_codes.ts";

export { PROFILE_CODES, type ProfileCode } from "./profile_codes.ts";

/** Profiles multiplied by the dynamisation factor (SOURCE.md, BDEW). */
export const DYNAMISED_PROFILES: ReadonlySet<ProfileCode> = new Set(["H0", "H25", "P25", "S25"]);

/** Thrown for a profile code that is not in `PROFILE_CODES`. */
export class UnknownProfileError extends Error {
  readonly code = "ERR_SLP_PROFILE";
  constructor(profile: unknown) {
    super(
      `unknown standard load profile ${JSON.stringify(profile)} (expected one of ${
        PROFILE_CODES.join(", ")
      })`,
    );
    this.name = "UnknownProfileError";
  }
}

/** Thrown for an annual energy that is not a finite number >= 0 (kWh/a). */
export class InvalidAnnualEnergyError extends Error {
  readonly code = "ERR_SLP_ANNUAL_KWH";
  constructor(annualKwh: unknown) {
    super(`annual energy ${String(annualKwh)} kWh is not a finite number >= 0`);
    this.name = "InvalidAnnualEnergyError";
  }
}

const CODES: ReadonlySet<string> = new Set(PROFILE_CODES);
const CODES_1999: ReadonlySet<string> = new Set(PROFILES_1999);
const KW_PER_KWH_1999 = 1 / 1_000;
const KW_PER_KWH_2025 = 4 / 1_000_000;
const MAX_CACHED = 20_000;
const shapes = new Map<string, Float64Array>();
const fingerprints = new Map<string, string>();
const tableIndices = new Map<string, Uint8Array>();

/** True for a supported profile code. */
export function isProfileCode(value: unknown): value is ProfileCode {
  return typeof value === "string" && CODES.has(value);
}

/**
 * BDEW dynamisation factor (SOURCE.md):
 * F(t) = -3.92e-10 t^4 + 3.2e-7 t^3 - 7.02e-5 t^2 + 2.1e-3 t + 1.24.
 * @param dayOfYear t, 1 (1 Jan) .. 365/366 (31 Dec)
 */
export function dynamisationFactor(dayOfYear: number): number {
  const t = dayOfYear;
  return (((-3.92e-10 * t + 3.2e-7) * t - 7.02e-5) * t + 2.1e-3) * t + 1.24;
}

/** The table day a profile uses for a local date, before dynamisation and clock-change mapping. */
export interface TableDay {
  code: ProfileCode;
  /** Local date `YYYY-MM-DD`. */
  day: string;
  dayType: DayType;
  /** Season for 1999 profiles, month 1..12 for 2025 profiles. */
  period: Season | number;
  /** 96 values, kW per 1 kWh/a, local wall-clock 00:00, 00:15, ..., 23:45; not dynamised. */
  values: Float64Array;
  /** Factor applied by `profileShape`: F(day of year) for dynamised profiles, else 1. */
  dynamisation: number;
}

/**
 * Selects the table day of a profile for a local date (raw table values converted to kW per
 * 1 kWh/a, no dynamisation, 96 values in wall-clock order).
 * @throws {UnknownProfileError} for an unknown code
 * @throws {InvalidDeliveryDayError} for a malformed or impossible date
 * @throws {UnknownHolidayRegionError} for an unknown region
 */
export function tableDayOf(code: ProfileCode, day: string, region = DEFAULT_REGION): TableDay {
  if (!isProfileCode(code)) throw new UnknownProfileError(code);
  const date = parseDay(day);
  const dayType = dayTypeOf(date, region);
  const tables = loadSlpTables();
  let period: Season | number;
  let values: Float64Array;
  if (CODES_1999.has(code)) {
    period = seasonOf(date);
    values = tableDay1999(tables, code as Profile1999, period, dayType).map((v) =>
      v * KW_PER_KWH_1999
    );
  } else {
    period = date.month;
    values = tableDay2025(tables, code as Profile2025, period, dayType).map((v) =>
      v * KW_PER_KWH_2025
    );
  }
  const dynamisation = DYNAMISED_PROFILES.has(code) ? dynamisationFactor(date.dayOfYear) : 1;
  return { code, day: date.toString(), dayType, period, values, dynamisation };
}

/**
 * Table index (0..95, local wall-clock quarter-hour `hour * 4 + minute / 15`) of each real
 * quarter-hour of a delivery day, from `deliveryDay(day).quarterHours` in Europe/Berlin: 92, 96
 * or 100 entries. On 2026-10-25 entries 8..15 are 8, 9, 10, 11, 8, 9, 10, 11. Returns a copy
 * of the per-day cache.
 * @throws {InvalidDeliveryDayError}
 */
export function tableIndexOfQuarterHours(day: string): Uint8Array {
  return cachedTableIndex(day).slice();
}

function cachedTableIndex(day: string): Uint8Array {
  let index = tableIndices.get(day);
  if (!index) {
    const qhs = deliveryDay(day).quarterHours;
    index = new Uint8Array(qhs.length);
    for (const [i, qh] of qhs.entries()) {
      const local = qh.toZonedDateTimeISO(MARKET_TIME_ZONE);
      index[i] = local.hour * 4 + Math.floor(local.minute / 15);
    }
    remember(tableIndices, day, index);
  }
  return index;
}

function remember<T>(cache: Map<string, T>, key: string, value: T): void {
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}

/** The cached shape (shared, must not be mutated). */
function cachedShape(code: ProfileCode, day: string, region: string): Float64Array {
  const key = `${code}|${day}|${region}`;
  let shape = shapes.get(key);
  if (!shape) {
    const table = tableDayOf(code, day, region);
    const index = cachedTableIndex(day);
    shape = new Float64Array(index.length);
    for (let i = 0; i < index.length; i++) {
      shape[i] = table.values[index[i]] * table.dynamisation;
    }
    remember(shapes, key, shape);
  }
  return shape;
}

/**
 * Profile shape: kW per 1 kWh of annual energy for each REAL quarter-hour of the delivery day
 * (92/96/100 values, in the order of `deliveryDay(day).quarterHours`), dynamisation applied
 * where BDEW requires it (H0, H25, P25, S25). Cached per (code, day, region); the returned
 * array is a fresh copy.
 * @param code profile code, one of `PROFILE_CODES`
 * @param day local delivery date `YYYY-MM-DD` (Europe/Berlin)
 * @param region holiday region `"DE"` (default, nationwide holidays) or `"DE-BY"` (with state)
 * @throws {UnknownProfileError} {InvalidDeliveryDayError} {UnknownHolidayRegionError}
 */
export function profileShape(
  code: ProfileCode,
  day: string,
  region: string = DEFAULT_REGION,
): Float64Array {
  return cachedShape(code, day, region).slice();
}

/**
 * The cached shape itself, without the copy `profileShape` makes: kW per 1 kWh/a for each real
 * quarter-hour of the day (92/96/100 values). Shared with every caller: read only. For loops
 * that scale one shape for many market locations (aggregation of generated forecasts).
 * @throws {UnknownProfileError} {InvalidDeliveryDayError} {UnknownHolidayRegionError}
 */
export function sharedProfileShape(
  code: ProfileCode,
  day: string,
  region: string = DEFAULT_REGION,
): Readonly<Float64Array> {
  if (!isProfileCode(code)) throw new UnknownProfileError(code);
  return cachedShape(code, day, region);
}

/** FNV-1a (32 bit) of `bytes`, as 8 hex digits (a fingerprint, not a cryptographic hash). */
export function fnv1a(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/**
 * Fingerprint of a shape: FNV-1a (32 bit) over the bytes of its 92/96/100 float64 values, as 8
 * hex digits. Equal fingerprints mean (up to a 2^-32 collision) bit-identical shapes, so a stored
 * reference to a generated forecast can tell whether the profile tables or rules that produced
 * it have changed since (then its values would differ and it must be generated again).
 * Cached per (code, day, region).
 * @throws {UnknownProfileError} {InvalidDeliveryDayError} {UnknownHolidayRegionError}
 */
export function shapeFingerprint(
  code: ProfileCode,
  day: string,
  region: string = DEFAULT_REGION,
): string {
  const key = `${code}|${day}|${region}`;
  let fp = fingerprints.get(key);
  if (fp === undefined) {
    const shape = sharedProfileShape(code, day, region);
    fp = fnv1a(new Uint8Array(shape.buffer, shape.byteOffset, shape.byteLength));
    remember(fingerprints, key, fp);
  }
  return fp;
}

/**
 * Forecast of a market location from its standard load profile: average kW per real
 * quarter-hour of the delivery day (92/96/100 values) = shape x `annualKwh`. Not rounded.
 * @param annualKwh annual energy of the market location in kWh/a, finite and >= 0
 * @throws {UnknownProfileError} {InvalidDeliveryDayError} {UnknownHolidayRegionError}
 * @throws {InvalidAnnualEnergyError} for a negative, NaN or infinite `annualKwh`
 */
export function generateProfileForecast(
  code: ProfileCode,
  annualKwh: number,
  day: string,
  region: string = DEFAULT_REGION,
): number[] {
  if (typeof annualKwh !== "number" || !(annualKwh >= 0) || annualKwh === Infinity) {
    throw new InvalidAnnualEnergyError(annualKwh);
  }
  const shape = cachedShape(code, day, region);
  const out: number[] = [];
  for (let i = 0; i < shape.length; i++) out.push(shape[i] * annualKwh);
  return out;
}
