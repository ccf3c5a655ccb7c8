/**
 * Formatting for the console: local wall-clock times with the UTC instant beside them,
 * countdowns, sizes, and every number the console writes (docs/console.md, "Numbers"): power and
 * energy with significant digits, in kW/kWh where the MW/MWh figure is below 1; money in EUR with
 * cents, in ct where an amount would read 0.00; parts and their total written so that the parts
 * shown add up to the total shown. Pure functions; the time zone and the locale are parameters so
 * tests are deterministic (the page uses the browser's zone and languages).
 *
 * @example
 * formatLocal("2025-06-02T08:41:00Z", Date.parse("2025-06-02T09:00:00Z"), "Europe/Berlin"); // "10:41:00"
 * formatCountdown(Date.parse("2025-06-01T10:00:00Z"), Date.parse("2025-06-01T07:30:00Z")); // "in 2 h 30 min"
 * power(0.019283, "en"); // "19.3 kW"
 * energy(1.560011, "de-DE"); // "1,56 MWh"
 * @module
 */

/** The market's time zone: every market time in the console is shown in it (docs/architecture.md, "Console"). */
export const MARKET_ZONE = "Europe/Berlin";

const parts = new Map<string, Intl.DateTimeFormat>();

function wall(ms: number, timeZone?: string): Record<string, string> {
  const key = timeZone ?? "";
  let f = parts.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    });
    parts.set(key, f);
  }
  const out: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(ms))) out[p.type] = p.value;
  return out;
}

/**
 * Local time of `iso`: `HH:MM:SS` when it falls on the same local day as `nowMs`, `MM-DD HH:MM`
 * in the same year, else `YYYY-MM-DD HH:MM`. An unparsable input is returned as given.
 */
export function formatLocal(iso: string, nowMs: number, timeZone?: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const w = wall(ms, timeZone);
  const n = wall(nowMs, timeZone);
  const date = `${w.year}-${w.month}-${w.day}`;
  if (date === `${n.year}-${n.month}-${n.day}`) return `${w.hour}:${w.minute}:${w.second}`;
  if (w.year === n.year) return `${w.month}-${w.day} ${w.hour}:${w.minute}`;
  return `${date} ${w.hour}:${w.minute}`;
}

/** Local date and time `YYYY-MM-DD HH:MM` of `iso`. */
export function formatLocalFull(iso: string, timeZone?: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const w = wall(ms, timeZone);
  return `${w.year}-${w.month}-${w.day} ${w.hour}:${w.minute}`;
}

/** The UTC instant for a tooltip: `YYYY-MM-DD HH:MM:SS UTC`. */
export function formatUtc(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** `in 2 d 3 h`, `in 3 h 12 min`, `in 4 min 05 s`, `in 9 s`, or `passed 2 h 10 min ago`. */
export function formatCountdown(targetMs: number, nowMs: number): string {
  const diff = targetMs - nowMs;
  const s = Math.floor(Math.abs(diff) / 1000);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  let span: string;
  if (d > 0) span = `${d} d ${h} h`;
  else if (h > 0) span = `${h} h ${m} min`;
  else if (m > 0) span = `${m} min ${String(sec).padStart(2, "0")} s`;
  else span = `${sec} s`;
  return diff >= 0 ? `in ${span}` : `passed ${span} ago`;
}

/** `8 MiB`, `512 KiB`, `100 B`. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} B`;
}

/** `HH:MM` of `iso` in Europe/Berlin, the market's time (an unparsable input is returned as given). */
export function formatBerlinHm(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const w = wall(ms, "Europe/Berlin");
  return `${w.hour}:${w.minute}`;
}

// ---------------------------------------------------------------------------------------------
// Numbers (docs/console.md, "Numbers"): every figure the console writes goes through these.

/** What a missing value reads as: a dash, never 0. */
export const MISSING = "—";
/** Between a number and its unit: a no-break space, so a narrow screen never parts them. */
export const NBSP = "\u00a0";
/** Significant digits a figure keeps (and at least all of its integer digits). */
export const SIGNIFICANT = 3;

/**
 * The locale numbers are written in: the first of the browser's languages (`navigator.languages`)
 * that `Intl.NumberFormat` supports, else `en`.
 */
export function operatorLocale(languages: readonly string[] | undefined): string {
  for (const l of languages ?? []) {
    try {
      if (Intl.NumberFormat.supportedLocalesOf([l]).length) return l;
    } catch {
      // not a well-formed language tag
    }
  }
  return "en";
}

const formats = new Map<string, Intl.NumberFormat>();

/** `v` with exactly `digits` decimals in `locale` (grouped thousands), or "—" for `null` / not finite. */
export function formatNumber(v: number | null | undefined, digits: number, locale: string): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return MISSING;
  const key = `${locale}|${digits}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale, {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    formats.set(key, f);
  }
  // −0.00 reads as 0.00.
  return f.format(Math.abs(v) < 0.5 * 10 ** -digits ? 0 : v);
}

/**
 * Decimals that show `v` with `sig` significant digits (never fewer than 0, at most 9): 1.5601 →
 * 2 (`1.56`), 36.94 → 1, 1234.5 → 0 (`1,235`: the integer digits stay), 0.0193 → 4; 0 → 0.
 */
export function decimalsFor(v: number, sig = SIGNIFICANT): number {
  if (!Number.isFinite(v) || v === 0) return 0;
  // The magnitude after rounding: 9.996 shows as 10.0, not 9.996.
  let mag = Math.floor(Math.log10(Math.abs(v)));
  if (Math.abs(Number(Math.abs(v).toPrecision(sig))) >= 10 ** (mag + 1)) mag++;
  return Math.min(9, Math.max(0, sig - 1 - mag));
}

/** `v` with {@link SIGNIFICANT} significant digits in `locale`: `1.56`, `36.9`, `1,235`, `0.0193`. */
export function formatSig(v: number | null | undefined, locale: string, sig = SIGNIFICANT) {
  if (v === null || v === undefined || !Number.isFinite(v)) return MISSING;
  return formatNumber(v, decimalsFor(v, sig), locale);
}

/** Number and unit held together, or "—" alone when the number is missing. */
export function withUnit(text: string, unit: string): string {
  return text === MISSING ? text : `${text}${NBSP}${unit}`;
}

/** A scale of one quantity: the unit and its size in the base unit (MW, MWh, EUR). */
interface Scale {
  unit: string;
  factor: number;
}
const POWER: readonly Scale[] = [{ unit: "MW", factor: 1 }, { unit: "kW", factor: 1e-3 }];
const ENERGY: readonly Scale[] = [{ unit: "MWh", factor: 1 }, { unit: "kWh", factor: 1e-3 }];

/** The scale for a magnitude: MW/MWh from 1 on, kW/kWh below (`0.019 MW` is `19.0 kW`). */
const scaleFor = (scales: readonly Scale[], v: number): Scale =>
  Math.abs(v) >= 1 || v === 0 ? scales[0] : scales[1];

/** A value of `scales` (base unit) with significant digits in the unit its size needs. */
function quantity(v: number | null | undefined, scales: readonly Scale[], locale: string) {
  if (v === null || v === undefined || !Number.isFinite(v)) return MISSING;
  const s = scaleFor(scales, v);
  return withUnit(formatSig(v / s.factor, locale), s.unit);
}

/** Power, MW in: `36.9 MW`, `1,235 MW`, `19.3 kW` (below 1 MW), `0 MW`. */
export const power = (mw: number | null | undefined, locale: string) => quantity(mw, POWER, locale);

/** Energy, MWh in: `1.56 MWh`, `144 kWh` (below 1 MWh), `0 MWh`. */
export const energy = (mwh: number | null | undefined, locale: string) =>
  quantity(mwh, ENERGY, locale);

/**
 * Money, EUR in: two decimals (`412.50 EUR`, `-12.00 EUR`); an amount that is not 0 but would
 * read `0.00` is written in cents with significant digits (`0.31 ct`).
 */
export function money(eur: number | null | undefined, locale: string): string {
  if (eur === null || eur === undefined || !Number.isFinite(eur)) return MISSING;
  if (eur !== 0 && Math.abs(eur) < 0.005) return withUnit(formatSig(eur * 100, locale), "ct");
  return withUnit(formatNumber(eur, 2, locale), "EUR");
}

/** A price, EUR/MWh in, two decimals as the TSOs publish it: `85.20 EUR/MWh`. */
export const price = (eurPerMwh: number | null | undefined, locale: string) =>
  withUnit(formatNumber(eurPerMwh, 2, locale), "EUR/MWh");

/** A share in percent with significant digits: `62.0 %`, `5.94 %`, `100 %`. */
export const percent = (pct: number | null | undefined, locale: string) =>
  withUnit(formatSig(pct, locale), "%");

/** Figures shown beside their total: the parts and the total, written alike. */
export interface Summed {
  parts: string[];
  total: string;
}

/** `Σ round(parts, d) = round(total, d)`, in integers of the `d`-th decimal. */
function addsUp(parts: readonly number[], total: number, d: number): boolean {
  const k = 10 ** d;
  const sum = parts.reduce((s, v) => s + Math.round(v * k), 0);
  return sum === Math.round(total * k);
}

/**
 * The decimals that make every group add up on screen: from `start` on, the first `d` at which
 * each group's parts, rounded, sum to its total, rounded; `max` when none does.
 */
export function decimalsAddingUp(
  groups: readonly { parts: readonly number[]; total: number }[],
  start: number,
  max: number,
): number {
  for (let d = start; d < max; d++) {
    if (groups.every((g) => addsUp(g.parts, g.total, d))) return d;
  }
  return max;
}

/**
 * The decimals a group of `unit`-scaled values starts from: {@link SIGNIFICANT} significant digits
 * of the largest value (the total), and at least one of every part that is not 0 (no part reads
 * as 0).
 */
function startDecimals(values: readonly number[], total: number): number {
  return Math.max(
    decimalsFor(total),
    ...values.filter((v) => v !== 0).map((v) => decimalsFor(v, 1)),
  );
}

/**
 * Energy (MWh in) of parts shown beside their total, in one unit (kWh when every figure is below
 * 1 MWh) and one number of decimals, chosen so that the parts shown add up to the total shown
 * (docs/console.md, "Numbers": the total is the true one, never re-derived from rounded parts;
 * the parts get the digits it takes, at most the service's own, 1 Wh).
 * @param groups more than one group shares the decimals (a table's rows and columns)
 */
export function energyTable(
  groups: readonly { parts: readonly number[]; total: number }[],
  locale: string,
): (mwh: number) => string {
  return table(groups, ENERGY, 6, locale);
}

/** Power (MW in) of parts and their total, written alike as {@link energyTable} does. */
export function powerTable(
  groups: readonly { parts: readonly number[]; total: number }[],
  locale: string,
): (mw: number) => string {
  return table(groups, POWER, 6, locale);
}

/**
 * Money (EUR in) of parts and their total: two decimals, more only where the parts shown would
 * not add up to the total (at most four, the service's own per quarter-hour).
 */
export function moneyTable(
  groups: readonly { parts: readonly number[]; total: number }[],
  locale: string,
): (eur: number) => string {
  const finite = groups.map((g) => ({ parts: g.parts.filter(Number.isFinite), total: g.total }));
  const d = decimalsAddingUp(finite, 2, 4);
  return (v) => withUnit(formatNumber(v, d, locale), "EUR");
}

function table(
  groups: readonly { parts: readonly number[]; total: number }[],
  scales: readonly Scale[],
  baseDecimals: number,
  locale: string,
): (v: number) => string {
  const all = groups.flatMap((g) => [...g.parts, g.total]).filter(Number.isFinite);
  const largest = all.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  const s = scaleFor(scales, largest);
  const scaled = groups.map((g) => ({
    parts: g.parts.filter(Number.isFinite).map((v) => v / s.factor),
    total: g.total / s.factor,
  }));
  const max = baseDecimals + Math.round(Math.log10(s.factor));
  const start = Math.min(
    max,
    Math.max(0, ...scaled.map((g) => startDecimals(g.parts, g.total))),
  );
  const d = decimalsAddingUp(scaled, start, max);
  return (v) => withUnit(formatNumber(v / s.factor, d, locale), s.unit);
}

/** {@link energyTable} of one group: the parts' texts and the total's. */
export function energySum(parts: readonly number[], total: number, locale: string): Summed {
  const f = energyTable([{ parts, total }], locale);
  return { parts: parts.map(f), total: f(total) };
}

/** The operator's number locale in this browser (`en` on the server). */
export const browserLocale = () => operatorLocale(globalThis.navigator?.languages);

/**
 * The labels of an axis's ticks (round values, `ticks` of components/PositionChart.tsx): all with
 * the decimals the finest of them needs (`0.25` → `0.00`, `0.25`, `0.50`), no unit.
 */
export function tickLabels(values: readonly number[], locale: string): string[] {
  let d = 0;
  while (d < 6 && values.some((v) => Math.abs(v * 10 ** d - Math.round(v * 10 ** d)) > 1e-6)) d++;
  return values.map((v) => formatNumber(v, d, locale));
}
