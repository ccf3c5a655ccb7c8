/**
 * The answer files the inbox import moved to `rejected/` that still wait for the operator
 * (docs/console_attention.md): each is an attention item (warn, naming the file and the
 * reason) until the operator acknowledges it or a newer answer for its day and control area is
 * recorded. Kept in KV under `["rejected_answers", <file>]` (one record per file name; a later
 * file of the same name replaces it) for at most {@link KEEP_DAYS} days.
 * @module
 */
import { KEYS } from "../store/keys.ts";
import type { RejectedAnswer } from "../wire/schedule_responses.ts";

/** How long a rejected file waits at most, in days, before it is forgotten unacknowledged. */
export const KEEP_DAYS = 30;

/** One rejected answer file (`lib/wire/schedule_responses.ts`). */
export type { RejectedAnswer };

/**
 * The delivery day a file name names (`20261127_TPS_…` → `2026-11-27`, BDEW file names,
 * docs/fahrplan.md), or `null`.
 */
export function dayOfFileName(name: string): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})_/.exec(name);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : null;
}

/** Records `r` as waiting for the operator. */
export async function noteRejected(kv: Deno.Kv, r: RejectedAnswer): Promise<void> {
  await kv.set(KEYS.rejectedAnswer(r.file), r, { expireIn: KEEP_DAYS * 86_400_000 });
}

/** Every rejected file still waiting, oldest first. */
export async function listRejected(kv: Deno.Kv): Promise<RejectedAnswer[]> {
  const out: RejectedAnswer[] = [];
  for await (const e of kv.list<RejectedAnswer>(KEYS.rejectedAnswers, { limit: 500 })) {
    out.push(e.value);
  }
  return out.sort((a, b) => a.at.localeCompare(b.at) || a.file.localeCompare(b.file));
}

/**
 * The operator has seen the rejected `file`: it is no attention item any more.
 * @returns the record, or `null` when no rejected file of that name waits
 */
export async function acknowledgeRejected(
  kv: Deno.Kv,
  file: string,
): Promise<RejectedAnswer | null> {
  const key = KEYS.rejectedAnswer(file);
  const found = await kv.get<RejectedAnswer>(key);
  if (!found.value) return null;
  await kv.atomic().check(found).delete(key).commit();
  return found.value;
}

/**
 * A newer answer for `day` and `area` was recorded at `at` (ISO-8601 UTC): the files rejected
 * before it for that day and area (or for that day, when their area is unknown) are settled.
 * @returns the settled files' names
 */
export async function settleRejected(
  kv: Deno.Kv,
  day: string,
  area: string,
  at: string,
): Promise<string[]> {
  const settled: string[] = [];
  for (const r of await listRejected(kv)) {
    if (r.delivery_day !== day || (r.control_area && r.control_area !== area)) continue;
    if (r.at > at) continue;
    await kv.delete(KEYS.rejectedAnswer(r.file));
    settled.push(r.file);
  }
  return settled;
}
