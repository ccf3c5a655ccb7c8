/**
 * Orchestrator run state (SPEC §3.1; DESIGN §5): `running` or `stopped`, persisted in KV under
 * `["orchestrator"]` so it survives restarts. Absent means `stopped`, unless
 * `ORCHESTRATOR_AUTOSTART=true`.
 * @module
 */

/** Literal orchestrator states. `running`: scheduled runs happen. */
export type OrchestratorStateName = "running" | "stopped";

/** The persisted state object; also the body of start/stop responses. */
export interface OrchestratorState {
  state: OrchestratorStateName;
  /** ISO-8601 UTC instant of the last change; `null` when never changed. */
  changed_at: string | null;
  /** Caller who changed it last; `null` when never changed. */
  changed_by: string | null;
}

const KEY: Deno.KvKey = ["orchestrator"];

/**
 * Reads the state.
 * @param autostart `ORCHESTRATOR_AUTOSTART`: the state when none was persisted yet
 */
export async function readOrchestratorState(
  kv: Deno.Kv,
  autostart: boolean,
): Promise<OrchestratorState> {
  const r = await kv.get<OrchestratorState>(KEY);
  return r.value ?? {
    state: autostart ? "running" : "stopped",
    changed_at: null,
    changed_by: null,
  };
}

/** Persists a new state; returns it. One KV write, atomic. */
export async function writeOrchestratorState(
  kv: Deno.Kv,
  state: OrchestratorStateName,
  by: string,
  atMs: number,
): Promise<OrchestratorState> {
  const value: OrchestratorState = {
    state,
    changed_at: new Date(atMs).toISOString(),
    changed_by: by,
  };
  await kv.set(KEY, value);
  return value;
}
