/**
 * What the TSO made of each schedule (docs/fahrplan.md): per
 * delivery day and control area the latest document's state — `sent`, then `acknowledged` or
 * `rejected` (ACK), `confirmed` (CNF) or `anomaly` (ANO) — with the reason, the time and the
 * message version it refers to. An answer about an older version never overwrites the status of
 * a newer one. Kept in KV (`KEYS.tsoStatus`), shared by replicas. A document sent to the market
 * platform (`schedule_channel=platform` with ESS or CIM) is also listed as pending
 * (`KEYS.platformPending`, its submission id) until its state is final, for the orchestrator to poll.
 * @module
 */
import { deliveryDay } from "../domain/delivery_day.ts";
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import type { z } from "zod";
import type { TsoStateSchema } from "../wire/schedule_responses.ts";

/** The state of one schedule at its TSO. */
export type TsoState = z.infer<typeof TsoStateSchema>;

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
  /** The market platform's submission id of the document (platform channel only). */
  platform_id?: string;
}

/** States after which a document's status does not change any more. */
const FINAL: readonly TsoState[] = ["rejected", "confirmed", "anomaly"];

/** A platform document whose state is not final yet (`KEYS.platformPending`). */
export interface PendingPlatformDocument {
  delivery_day: string;
  control_area: string;
  /** Message version of the document. */
  version: number;
  /** The platform's submission id. */
  platform_id: string;
  /**
   * ISO-8601 UTC instant after which it is no longer asked about: a day after its delivery day
   * ended, or after it was sent when that is later (a post-delivery correction,
   * docs/post-delivery.md). Absent in records written before: a day after the day ended.
   */
  poll_until?: string;
}

/** How long after the end of its delivery day, or after it left, a document is asked about. */
export const POLL_FOR_MS = 86_400_000;

/**
 * Records that a document was handed over (`sent`); never for an older version than stored, and
 * a resend of the same version keeps what the TSO already answered. With a `platform_id` the
 * document is pending for the poll (until its state is final); without one, no older document
 * stays pending.
 */
export async function markSent(
  kv: Deno.Kv,
  day: string,
  s: Omit<TsoStatus, "tso_status" | "reason_code" | "reason_text">,
): Promise<void> {
  const key = KEYS.tsoStatus(day, s.control_area);
  const pendingKey = KEYS.platformPending(day, s.control_area);
  const pending: PendingPlatformDocument | null = s.platform_id
    ? {
      delivery_day: day,
      control_area: s.control_area,
      version: s.version,
      platform_id: s.platform_id,
      poll_until: new Date(
        Math.max(deliveryDay(day).end.epochMilliseconds, Date.parse(s.at)) + POLL_FOR_MS,
      ).toISOString(),
    }
    : null;
  await retryKv(`schedule status of ${day} ${s.control_area}`, async () => {
    const cur = await kv.get<TsoStatus>(key);
    if (cur.value && cur.value.version > s.version) return true;
    // The same document again (a resend after a partial failure): what the TSO answered stays.
    if (cur.value && cur.value.version === s.version && cur.value.tso_status !== "sent") {
      if (!pending || FINAL.includes(cur.value.tso_status)) return true;
      return (await kv.atomic().check(cur).set(key, { ...cur.value, platform_id: s.platform_id })
        .set(pendingKey, pending).commit()).ok || undefined;
    }
    const next: TsoStatus = { ...s, tso_status: "sent", reason_code: null, reason_text: null };
    const op = kv.atomic().check(cur).set(key, next);
    if (pending) op.set(pendingKey, pending);
    else op.delete(pendingKey);
    return (await op.commit()).ok || undefined;
  });
}

/** Every platform document whose state is not final yet, oldest day first. */
export async function pendingPlatformDocuments(kv: Deno.Kv): Promise<PendingPlatformDocument[]> {
  const out: PendingPlatformDocument[] = [];
  for await (const e of kv.list<PendingPlatformDocument>(KEYS.platformPendingAll)) {
    out.push(e.value);
  }
  return out;
}

/** Stops polling a document (the platform does not know it, or its day is long over). */
export async function dropPending(kv: Deno.Kv, day: string, controlArea: string): Promise<void> {
  await kv.delete(KEYS.platformPending(day, controlArea));
}

/**
 * Applies a TSO answer about message `version`.
 * @returns `applied`, `same` (the status already says so, or an acknowledgement arrives after
 *   a final answer of the same document: nothing changes, so a repeated answer is told once),
 *   `older` (a newer version's status stays), or `unknown` (no document of that day and area was
 *   sent)
 */
export async function applyAnswer(
  kv: Deno.Kv,
  day: string,
  controlArea: string,
  version: number | null,
  change: Pick<TsoStatus, "tso_status" | "reason_code" | "reason_text" | "at">,
): Promise<"applied" | "same" | "older" | "unknown"> {
  const key = KEYS.tsoStatus(day, controlArea);
  return await retryKv(`schedule status of ${day} ${controlArea}`, async () => {
    const cur = await kv.get<TsoStatus>(key);
    if (!cur.value) return "unknown" as const;
    if (version !== null && version < cur.value.version) return "older" as const;
    const pendingKey = KEYS.platformPending(day, controlArea);
    const same = cur.value.tso_status === change.tso_status &&
      cur.value.reason_code === change.reason_code &&
      cur.value.reason_text === change.reason_text;
    // A late acknowledgement does not take back a confirmation, rejection or anomaly of the same
    // document; a final answer ends the polling of this day and area.
    const sameDocument = version === null || version === cur.value.version;
    const keep = same ||
      (sameDocument && FINAL.includes(cur.value.tso_status) &&
        !FINAL.includes(change.tso_status));
    if (keep) {
      if (FINAL.includes(cur.value.tso_status)) await kv.delete(pendingKey);
      return "same" as const;
    }
    const op = kv.atomic().check(cur).set(key, { ...cur.value, ...change });
    if (FINAL.includes(change.tso_status)) op.delete(pendingKey);
    const r = await op.commit();
    return r.ok ? "applied" as const : undefined;
  });
}

/** Every schedule status of a day, by control area. */
export async function tsoStatuses(kv: Deno.Kv, day: string): Promise<TsoStatus[]> {
  const out: TsoStatus[] = [];
  for await (const e of kv.list<TsoStatus>(KEYS.tsoStatusesOfDay(day))) out.push(e.value);
  return out;
}

/** The schedule status of one day and area; `null` when no document was sent. */
export async function tsoStatusOf(
  kv: Deno.Kv,
  day: string,
  controlArea: string,
): Promise<TsoStatus | null> {
  return (await kv.get<TsoStatus>(KEYS.tsoStatus(day, controlArea))).value;
}
