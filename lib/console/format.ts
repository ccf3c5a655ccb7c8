/**
 * Formatting for the console: local wall-clock times with the UTC instant beside them,
 * countdowns, sizes and megawatts. Pure functions; the time zone is a parameter so tests are
 * deterministic (the page uses the browser's zone).
 *
 * @example
 * formatLocal("2025-06-02T08:41:00Z", Date.parse("2025-06-02T09:00:00Z"), "Europe/Berlin"); // "10:41:00"
 * formatCountdown(Date.parse("2025-06-01T10:00:00Z"), Date.parse("2025-06-01T07:30:00Z")); // "in 2 h 30 min"
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

/** Megawatts with up to one decimal and a true minus sign: `−12.3`. */
export function formatMw(v: number): string {
  const r = Math.round(v * 10) / 10;
  const text = Math.abs(r).toFixed(Math.abs(r) >= 100 || Number.isInteger(r) ? 0 : 1);
  return r < 0 ? `\u2212${text}` : text;
}

/** `HH:MM` of `iso` in Europe/Berlin, the market's time (an unparsable input is returned as given). */
export function formatBerlinHm(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const w = wall(ms, "Europe/Berlin");
  return `${w.hour}:${w.minute}`;
}

/** MWh with one decimal and a thin thousands grouping ("1,234.5"). */
export function formatMwh(v: number): string {
  return v.toLocaleString("en-GB", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}
