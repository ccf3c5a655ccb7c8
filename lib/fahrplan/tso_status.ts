/**
 * What the TSO made of each schedule (docs/pipeline.md, "Schedules to the TSO (Fahrplan)"): per
 * delivery day and control area the latest document's state — `sent`, then `acknowledged` or
 * `rejected` (ACK), `confirmed` (CNF) or `anomaly` (ANO) — with the reason, the time and the
 * message version it refers to. An answer about an older version never overwrites the status of
 * a newer one. Kept in KV (`KEYS.tsoStatus`), shared by replicas.
 * @module
 */
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";

/** The state of one schedule at its TSO. */
export type TsoState = "sent" | "acknowledged" | "rejected" | "confirmed" | "anomaly";

/** One day's and area's schedule status. */
export interface TsoStatus {
  control_area: string;
  /** The TSO's EIC. */
  receiver: string;
  /** Message version of the document the status refers to. */
  version: number;
  /** File name of that document. */
  file: string;
  tso_status: TsoState;
  reason_code: string | null;
  reason_text: string | null;
  /** ISO-8601 UTC instant of the last change. */
  at: string;
}

/** Records that a document was handed over (`sent`); never for an older version than stored. */
export async function markSent(
  kv: Deno.Kv,
  day: string,
  s: Omit<TsoStatus, "tso_status" | "reason_code" | "reason_text">,
): Promise<void> {
  const key = KEYS.tsoStatus(day, s.control_area);
  await retryKv(`schedule status of ${day} ${s.control_area}`, async () => {
    const cur = await kv.get<TsoStatus>(key);
    if (cur.value && cur.value.version > s.version) return true;
    const next: TsoStatus = { ...s, tso_status: "sent", reason_code: null, reason_text: null };
    return (await kv.atomic().check(cur).set(key, next).commit()).ok || undefined;
  });
}

/**
 * Applies a TSO answer about message `version`.
 * @returns `applied`, `older` (a newer version's status stays), or `unknown` (no document of
 *   that day and area was sent)
 */
export async function applyAnswer(
  kv: Deno.Kv,
  day: string,
  controlArea: string,
  version: number | null,
  change: Pick<TsoStatus, "tso_status" | "reason_code" | "reason_text" | "at">,
): Promise<"applied" | "older" | "unknown"> {
  const key = KEYS.tsoStatus(day, controlArea);
  return await retryKv(`schedule status of ${day} ${controlArea}`, async () => {
    const cur = await kv.get<TsoStatus>(key);
    if (!cur.value) return "unknown" as const;
    if (version !== null && version < cur.value.version) return "older" as const;
    const next: TsoStatus = { ...cur.value, ...change };
    const r = await kv.atomic().check(cur).set(key, next).commit();
    return r.ok ? "applied" as const : undefined;
  });
}

/** Every schedule status of a day, by control area. */
export async function tsoStatuses(kv: Deno.Kv, day: string): Promise<TsoStatus[]> {
  const out: TsoStatus[] = [];
  for await (const e of kv.list<TsoStatus>(KEYS.tsoStatusesOfDay(day))) out.push(e.value);
  return out;
}
