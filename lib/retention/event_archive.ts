/**
 * Old events to the archive (docs/retention.md, "Events"): the oldest events whose `ts` is past
 * the cutoff, one month (UTC, by `ts`) at a time, appended to `events/YYYY-MM.jsonl` — the month
 * file is written again whole under a temporary name and renamed, then read back — and only then
 * deleted from KV. `["events_head"]` is never touched, so ids stay strictly increasing and
 * listing, paging and resuming by id work as before (a page simply starts at the oldest kept id).
 *
 * Idempotent: lines already in the month file (a crash after the write, before the delete) are
 * recognised by their id and not written twice.
 * @module
 */
import type { EventRecord } from "../wire/events.ts";
import { KEYS } from "../store/keys.ts";
import type { ArchiveTarget } from "./target.ts";
import { jsonLine } from "./text.ts";

/** Events archived per step at most. */
export const EVENTS_PER_STEP = 2000;
/** Keys deleted per atomic. */
const DELETES_PER_ATOMIC = 500;

/** What one step did: how many events left the store, and from which month. */
export interface EventStep {
  archived: number;
  month: string | null;
}

const dec = new TextDecoder();
const enc = new TextEncoder();

/** True when `a` and `b` hold the same bytes. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The highest `id` among the lines of a month file (0 when empty). */
function lastIdOf(text: string): number {
  const end = text.trimEnd();
  const nl = end.lastIndexOf("\n");
  if (!end) return 0;
  return (JSON.parse(end.slice(nl + 1)) as { id: number }).id;
}

/**
 * Archives and deletes up to {@link EVENTS_PER_STEP} of the oldest events older than `cutoffMs`
 * (all of one month).
 * @param startBeforeMs do nothing unless the oldest event is older than this (epoch ms; default
 *   `cutoffMs`): the pruner passes a day before the cutoff so that a month file is written again
 *   about once a day, not on every tick (docs/retention.md, "Events")
 * @returns `{archived: 0}` when no event is old enough
 * @throws {Error} when the target refuses the file or the read-back differs (nothing is deleted)
 */
export async function archiveEventStep(
  kv: Deno.Kv,
  target: ArchiveTarget,
  cutoffMs: number,
  startBeforeMs: number = cutoffMs,
): Promise<EventStep> {
  // One record read when nothing is old enough (the common case on every tick).
  const start = Math.min(cutoffMs, startBeforeMs);
  for await (const e of kv.list<EventRecord>({ prefix: KEYS.events }, { limit: 1 })) {
    if (!(Date.parse(e.value.ts) < start)) return { archived: 0, month: null };
  }
  const batch: EventRecord[] = [];
  let month: string | null = null;
  for await (
    const e of kv.list<EventRecord>({ prefix: KEYS.events }, {
      limit: EVENTS_PER_STEP,
      batchSize: 500,
    })
  ) {
    const ts = Date.parse(e.value.ts);
    if (!(ts < cutoffMs)) break;
    const m = e.value.ts.slice(0, 7);
    if (month !== null && m !== month) break;
    month = m;
    batch.push(e.value);
  }
  if (month === null) return { archived: 0, month: null };
  const path = `events/${month}.jsonl`;
  const old = await target.read(path);
  const oldText = old ? dec.decode(old) : "";
  const known = lastIdOf(oldText);
  const fresh = batch.filter((r) => r.id > known);
  if (fresh.length) {
    const bytes = enc.encode(oldText + fresh.map((r) => jsonLine(r)).join(""));
    await target.write(path, bytes);
    const back = await target.read(path);
    if (!back || !sameBytes(back, bytes)) {
      throw new Error(`archive ${path} read back differs from what was written; nothing deleted`);
    }
  }
  for (let i = 0; i < batch.length; i += DELETES_PER_ATOMIC) {
    const op = kv.atomic();
    for (const r of batch.slice(i, i + DELETES_PER_ATOMIC)) op.delete(KEYS.event(r.id));
    await op.commit();
  }
  return { archived: batch.length, month };
}
