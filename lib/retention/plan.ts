/**
 * What retention may take out of the store now (docs/retention.md, "Rules"): a delivery day
 * whose end (midnight Europe/Berlin after it) lies more than `RETENTION_DAYS` × 24 h back, and
 * events whose `ts` lies more than that far back. Pure rules plus one cheap KV probe per
 * day-scoped prefix ({@link DAY_SCOPED_PREFIXES}).
 * @module
 */
import { deliveryDay } from "../domain/delivery_day.ts";
import { DAY_SCOPED_PREFIXES, KEYS } from "../store/keys.ts";

const DAY_MS = 86_400_000;

/** The instant (epoch ms) before which an event is old: `nowMs − retentionDays × 24 h`. */
export function eventCutoffMs(nowMs: number, retentionDays: number): number {
  return nowMs - retentionDays * DAY_MS;
}

/**
 * True when `day` (`YYYY-MM-DD`) ended more than `retentionDays` × 24 h before `nowMs`; never
 * with `retentionDays` 0 (keep everything).
 */
export function dayExpired(day: string, nowMs: number, retentionDays: number): boolean {
  if (retentionDays <= 0) return false;
  const end = deliveryDay(day).end.epochMilliseconds;
  return end < eventCutoffMs(nowMs, retentionDays);
}

/** True for a string of the `YYYY-MM-DD` form (key parts of other shapes are never pruned). */
const isDay = (v: unknown): v is string => typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v);

/**
 * The oldest delivery day that has any record under a day-scoped prefix or an unfinished pruning
 * state, when it has expired; else `null`. Reads at most one key per prefix.
 */
export async function nextExpiredDay(
  kv: Deno.Kv,
  nowMs: number,
  retentionDays: number,
): Promise<string | null> {
  if (retentionDays <= 0) return null;
  // The probes at once: each is one round trip to the store.
  const firstKeyOf = async (selector: Deno.KvListSelector): Promise<Deno.KvKey | undefined> => {
    for await (const e of kv.list(selector, { limit: 1 })) return e.key;
  };
  const firsts = await Promise.all([
    firstKeyOf(KEYS.retentionDays).then((k) => k?.[2]),
    ...DAY_SCOPED_PREFIXES.map((p) => firstKeyOf({ prefix: [p] }).then((k) => k?.[1])),
  ]);
  let oldest: string | null = null;
  for (const day of firsts) if (isDay(day) && (oldest === null || day < oldest)) oldest = day;
  return oldest !== null && dayExpired(oldest, nowMs, retentionDays) ? oldest : null;
}

/** `YYYY/MM/DD` of a delivery day: its folder in the archive. */
export function dayFolder(day: string): string {
  return day.replaceAll("-", "/");
}
