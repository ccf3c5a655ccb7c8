/**
 * Orchestrator run state (docs/orchestrator.md): `running` or `stopped`, persisted in KV under
 * `["orchestrator"]` so it survives restarts. Absent means `stopped`, unless
 * `ORCHESTRATOR_AUTOSTART=true`.
 *
 * {@link OrchestratorStateStore} keeps it in memory for the status endpoint (see
 * {@link CachedEntry} for when a change is seen); the cron tick reads KV with
 * {@link readOrchestratorState}.
 * @module
 */
import { CachedEntry } from "../config/cached_entry.ts";
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import type { OrchestratorState, OrchestratorStateName } from "../wire/orchestrator.ts";

export type { OrchestratorState, OrchestratorStateName } from "../wire/orchestrator.ts";

const KEY = KEYS.orchestrator;

/**
 * Reads the state.
 * @param autostart `ORCHESTRATOR_AUTOSTART`: the state when none was persisted yet
 */
export async function readOrchestratorState(
  kv: Deno.Kv,
  autostart: boolean,
): Promise<OrchestratorState> {
  const r = await kv.get<OrchestratorState>(KEY);
  return r.value ?? initialState(autostart);
}

const INITIAL_RUNNING: OrchestratorState = Object.freeze({
  state: "running",
  changed_at: null,
  changed_by: null,
});
const INITIAL_STOPPED: OrchestratorState = Object.freeze({
  state: "stopped",
  changed_at: null,
  changed_by: null,
});

/** The state before anyone changed it (a new object: the caller may change it). */
function initialState(autostart: boolean): OrchestratorState {
  return { ...(autostart ? INITIAL_RUNNING : INITIAL_STOPPED) };
}

/**
 * The orchestrator state of one app instance, cached in memory: a change through
 * {@link OrchestratorStateStore.write} is seen by the next read at once, another replica's
 * within `maxAgeMs` (1 s by default), or at once where `kv.watch` reports it after
 * {@link OrchestratorStateStore.watch}.
 */
export class OrchestratorStateStore {
  #kv: Deno.Kv;
  #initial: OrchestratorState;
  #cache: CachedEntry<OrchestratorState>;

  /**
   * @param autostart `ORCHESTRATOR_AUTOSTART`: the state when none was persisted yet
   * @param opts.maxAgeMs longest time, in ms, another replica's change can go unseen
   */
  constructor(kv: Deno.Kv, autostart: boolean, opts: { maxAgeMs?: number } = {}) {
    this.#kv = kv;
    this.#initial = autostart ? INITIAL_RUNNING : INITIAL_STOPPED;
    this.#cache = new CachedEntry<OrchestratorState>(kv, KEY, opts);
  }

  /**
   * The state when the cache is young enough to answer without KV, else `undefined` (then await
   * {@link OrchestratorStateStore.current}). The object is frozen and shared: the same object
   * while the state is unchanged.
   */
  peek(): Readonly<OrchestratorState> | undefined {
    const entry = this.#cache.peek();
    return entry && (entry.value ?? this.#initial);
  }

  /**
   * The state (frozen, shared), from memory when young enough, else from KV.
   * @throws whatever `kv.get` throws when a KV read is needed and fails
   */
  async current(): Promise<Readonly<OrchestratorState>> {
    return this.peek() ?? (await this.#cache.get()).value ?? this.#initial;
  }

  /**
   * Persists a new state (one KV write) and caches it; returns it.
   * @param by the caller's name
   * @param atMs instant of the change, ms since the epoch
   * @throws {KvContentionError} (lib/store/kv.ts) when KV stays locked; whatever else `kv.set` throws
   */
  async write(
    state: OrchestratorStateName,
    by: string,
    atMs: number,
  ): Promise<OrchestratorState> {
    const value: OrchestratorState = {
      state,
      changed_at: new Date(atMs).toISOString(),
      changed_by: by,
    };
    // `database is locked` (replicas on one SQLite file) is retried, bounded.
    const r = await retryKv("write the orchestrator state", () => this.#kv.set(KEY, value));
    this.#cache.written(Object.freeze({ ...value }), r.versionstamp);
    return value;
  }

  /** Re-reads whenever `kv.watch` reports a change. Call {@link OrchestratorStateStore.close}. */
  watch(): void {
    this.#cache.watch();
  }

  /** Stops the watch. */
  async close(): Promise<void> {
    await this.#cache.close();
  }
}
