/**
 * Pass health (docs/orchestrator.md): the last finished pass — scheduled or manual —
 * with its outcome and counts, and how many passes in a row failed, kept in KV under
 * `KEYS.orchestratorPasses` so that it survives restarts and every replica's status shows it.
 * Cached in memory like the orchestrator state, so the status route reads no KV.
 * @module
 */
import { CachedEntry } from "../config/cached_entry.ts";
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import type { LastPass, PassHealth, PassOutcome } from "../wire/orchestrator.ts";

/** What a pass ran and what failed, per day (the shape of a pass report). */
export interface PassDays {
  days: { ran: unknown[]; failed?: unknown }[];
}

/**
 * The outcome of a pass: `nothing_to_do` when it ran nothing and nothing failed, `ok` when it ran
 * steps and none failed, `partial` when some ran and some failed, `failed` when only failures.
 */
export function passOutcome(
  report: PassDays,
): { outcome: PassOutcome; steps_run: number; steps_failed: number } {
  const run = report.days.reduce((n, d) => n + d.ran.length, 0);
  const failed = report.days.filter((d) => d.failed).length;
  const outcome: PassOutcome = failed === 0
    ? (run === 0 ? "nothing_to_do" : "ok")
    : (run === 0 ? "failed" : "partial");
  return { outcome, steps_run: run, steps_failed: failed };
}

/** The stored pass health of one deployment. */
export class PassLog {
  #kv: Deno.Kv;
  #cache: CachedEntry<PassHealth>;
  #onRecord: ((pass: LastPass) => void) | undefined;

  /**
   * @param opts.maxAgeMs longest time, in ms, another replica's pass can go unseen
   * @param opts.onRecord told of every pass this process records, once stored (the metrics)
   */
  constructor(
    kv: Deno.Kv,
    opts: { maxAgeMs?: number; onRecord?: (pass: LastPass) => void } = {},
  ) {
    this.#kv = kv;
    this.#cache = new CachedEntry<PassHealth>(kv, KEYS.orchestratorPasses, opts);
    this.#onRecord = opts.onRecord;
  }

  /** The health when the cache is young enough (`null`: no pass yet), else `undefined`. */
  peek(): Readonly<PassHealth> | null | undefined {
    const entry = this.#cache.peek();
    return entry && entry.value;
  }

  /** The health (`null`: no pass yet), from memory when young enough, else from KV. */
  async current(): Promise<Readonly<PassHealth> | null> {
    const known = this.peek();
    return known !== undefined ? known : (await this.#cache.get()).value;
  }

  /**
   * Records a finished pass; the failed passes in a row grow by one for a `failed` one and go
   * back to 0 for any other; `last_ok_at` moves to its end for an `ok` or `nothing_to_do` one.
   * @throws {KvContentionError} when KV stays contended
   */
  async record(pass: LastPass): Promise<PassHealth> {
    const health = await retryKv("record an orchestrator pass", async () => {
      const cur = await this.#kv.get<PassHealth>(KEYS.orchestratorPasses);
      const ok = pass.outcome === "ok" || pass.outcome === "nothing_to_do";
      const lastOk = ok ? pass.finished_at : cur.value?.last_ok_at;
      const next: PassHealth = {
        last_pass: pass,
        failed_in_a_row: pass.outcome === "failed" ? (cur.value?.failed_in_a_row ?? 0) + 1 : 0,
        ...(lastOk ? { last_ok_at: lastOk } : {}),
      };
      const r = await this.#kv.atomic().check(cur).set(KEYS.orchestratorPasses, next).commit();
      if (!r.ok) return undefined;
      this.#cache.written(Object.freeze(next), r.versionstamp);
      return next;
    });
    this.#onRecord?.(pass);
    return health;
  }

  /** Re-reads whenever `kv.watch` reports a change. Call {@link PassLog.close}. */
  watch(): void {
    this.#cache.watch();
  }

  /** Stops the watch. */
  async close(): Promise<void> {
    await this.#cache.close();
  }
}
