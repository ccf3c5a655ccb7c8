/**
 * The pass history (docs/console.md, "Pass history"): every finished orchestrator pass,
 * scheduled or manual — when, by whom, how long, its outcome, and per delivery day the steps that
 * ran, the one that failed with its reason and the later ones not tried — kept in KV under
 * `KEYS.passHistoryEntry(seq)` with a sequence number (`KEYS.passHistorySeq`) shared by replicas.
 *
 * Bounded: the newest {@link MAX_PASSES} passes and at most {@link MAX_AGE_DAYS} days; each
 * record removes what falls out (the oldest few, read oldest first). The orchestrator hands every
 * finished pass to {@link PassHistory.record} (its `onPass` hook, wired in `app.ts`).
 * @module
 */
import type { Clock } from "../clock.ts";
import { STEP_TABLE } from "../pipeline/step_table.ts";
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import type { LastPass } from "../wire/orchestrator.ts";
import type { PassDay, PassPage, PassRecord } from "../wire/pass_history.ts";

/** Passes kept at most. */
export const MAX_PASSES = 1_000;
/** Days a pass is kept at most. */
export const MAX_AGE_DAYS = 7;
/** Largest page of {@link PassHistory.page}. */
export const MAX_PAGE = 200;
/** Old records removed per record at most (the history shrinks to its bounds over a few passes). */
const PRUNE_BATCH = 20;

/** A finished pass as the orchestrator knows it. */
export interface FinishedPass extends LastPass {
  /** Per day what ran and what failed (absent when the pass failed before any day). */
  days?: readonly {
    delivery_day: string;
    ran: readonly string[];
    failed?: { step: string; error: string };
  }[];
  /** Why the pass failed outside its steps (then `days` is absent). */
  error?: string;
  /** Answer files the pass's inbox import moved to `rejected/`, with why. */
  rejected_files?: readonly { file: string; reason: string }[];
}

/**
 * The steps of a day after `failed` in pipeline order (docs/orchestrator.md): a day's
 * pass ends at its first failure, so they were not tried.
 */
export function notTriedAfter(failed: string): PassDay["skipped"] {
  const i = STEP_TABLE.findIndex((r) => r.step === failed);
  if (i < 0) return [];
  return STEP_TABLE.slice(i + 1).map((r) => ({
    step: r.step,
    reason: `not tried: the day's pass stops at its first failure (${failed} failed)`,
  }));
}

/** The stored form of a finished pass (`id` given by the store). */
export function passRecord(id: number, p: FinishedPass): PassRecord {
  const ms = Date.parse(p.finished_at) - Date.parse(p.started_at);
  return {
    id,
    started_at: p.started_at,
    finished_at: p.finished_at,
    duration_s: Number.isFinite(ms) ? Math.max(0, Math.round(ms) / 1000) : 0,
    by: p.by,
    trigger: p.by === "orchestrator" ? "scheduled" : "manual",
    outcome: p.outcome,
    steps_run: p.steps_run,
    steps_failed: p.steps_failed,
    days: (p.days ?? []).map((d) => ({
      delivery_day: d.delivery_day,
      ran: [...d.ran],
      failed: d.failed ? { step: d.failed.step, error: d.failed.error } : null,
      skipped: d.failed ? notTriedAfter(d.failed.step) : [],
    })),
    error: p.error ?? null,
    rejected_files: (p.rejected_files ?? []).map((r) => ({ file: r.file, reason: r.reason })),
  };
}

/** The pass history of one deployment. */
export class PassHistory {
  #kv: Deno.Kv;
  #clock: Clock;

  constructor(kv: Deno.Kv, clock: Clock) {
    this.#kv = kv;
    this.#clock = clock;
  }

  /**
   * Stores `pass` under the next sequence number, then removes what falls outside the bounds.
   * @throws {KvContentionError} when KV stays contended
   */
  async record(pass: FinishedPass): Promise<PassRecord> {
    const rec = await retryKv("record a pass in the history", async () => {
      const seq = await this.#kv.get<number>(KEYS.passHistorySeq);
      const id = (seq.value ?? 0) + 1;
      const r = passRecord(id, pass);
      const ok = await this.#kv.atomic().check(seq)
        .set(KEYS.passHistorySeq, id)
        .set(KEYS.passHistoryEntry(id), r)
        .commit();
      return ok.ok ? r : undefined;
    });
    await this.#prune(rec.id);
    return rec;
  }

  /** Removes the oldest records beyond {@link MAX_PASSES} or older than {@link MAX_AGE_DAYS}. */
  async #prune(newest: number): Promise<void> {
    const cutoff = this.#clock.now() - MAX_AGE_DAYS * 86_400_000;
    const gone: Deno.KvKey[] = [];
    for await (
      const e of this.#kv.list<PassRecord>(KEYS.passHistory, { limit: PRUNE_BATCH })
    ) {
      const old = e.value.id <= newest - MAX_PASSES || Date.parse(e.value.finished_at) < cutoff;
      if (!old) break;
      gone.push(e.key);
    }
    if (!gone.length) return;
    const op = this.#kv.atomic();
    for (const k of gone) op.delete(k);
    await op.commit();
  }

  /**
   * A page of passes, newest first.
   * @param opts `limit` (1–{@link MAX_PAGE}, default 50); `before`: only passes with a smaller id
   */
  async page(opts: { limit?: number; before?: number } = {}): Promise<PassPage> {
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), MAX_PAGE);
    const selector = opts.before !== undefined
      ? KEYS.passHistoryBefore(opts.before)
      : KEYS.passHistory;
    const passes: PassRecord[] = [];
    for await (
      const e of this.#kv.list<PassRecord>(selector, { reverse: true, limit: limit + 1 })
    ) passes.push(e.value);
    const more = passes.length > limit;
    if (more) passes.length = limit;
    return { passes, next_before: more ? passes[passes.length - 1].id : null };
  }
}
