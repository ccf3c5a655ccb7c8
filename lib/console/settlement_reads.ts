/**
 * One read of a day's settlement for everything in the page that shows it (docs/console.md,
 * "After delivery"): the attention box's line about yesterday and the day's view share
 * `GET /v1/delivery-days/{day}/settlement`, which the service computes on every read. A read is
 * kept for at most a minute, and forgotten at once when a live event says a settlement input was
 * stored ({@link forgetSettlements}), so a correction shows at the next read.
 * @module
 */
import type { DaySettlement } from "../wire/settlement.ts";
import { ApiError } from "./api.ts";
import { isRefusal } from "./session.ts";

/** How long a read is shared, ms. */
const KEEP_MS = 60_000;

const reads = new Map<string, { at: number; body: Promise<DaySettlement> }>();

/** The path of a day's settlement. */
export const settlementPath = (day: string) => `/v1/delivery-days/${day}/settlement`;

/**
 * The settlement of `day`, read with `get` unless a read of the last minute is there (a failed
 * read is not kept).
 * @param nowMs the clock, ms since the epoch
 */
export function readDaySettlement(
  day: string,
  get: (path: string) => Promise<DaySettlement>,
  nowMs: number = Date.now(),
): Promise<DaySettlement> {
  const kept = reads.get(day);
  if (kept && nowMs - kept.at < KEEP_MS) return kept.body;
  const body = get(settlementPath(day));
  const entry = { at: nowMs, body };
  reads.set(day, entry);
  body.catch(() => reads.get(day) === entry && reads.delete(day));
  return body;
}

/** Forgets every kept read: a settlement input was stored, or the key changed. */
export function forgetSettlements(): void {
  reads.clear();
}

/** Whether a day's settlement has any actual (metered, profile-settled or a balancing-group sum). */
export const anyActual = (s: DaySettlement) =>
  s.areas.some((a) => a.actual_mw.some((v) => v !== null));

/** What a view of a day's settlement shows: loading, the settlement, "none yet", or a refusal. */
export type SettlementLoad =
  | { kind: "loading" }
  | { kind: "ok"; body: DaySettlement }
  | { kind: "none" }
  | { kind: "error"; text: string };

/** Reads a day's settlement; 404 is "none", 401/403/503 rethrown for the caller to stay quiet. */
export async function readSettlement(
  day: string,
  get: (path: string) => Promise<DaySettlement>,
): Promise<SettlementLoad> {
  try {
    return { kind: "ok", body: await get(settlementPath(day)) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return { kind: "none" };
    if (isRefusal(err)) throw err;
    return {
      kind: "error",
      text: `The settlement of ${day} could not be read: ${
        err instanceof ApiError ? err.detail : String(err)
      }`,
    };
  }
}
