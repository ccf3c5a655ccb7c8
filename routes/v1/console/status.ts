/**
 * `GET /v1/console/status` (docs/architecture.md, "Console API"): orchestrator state, version, key configuration facts
 * and security posture. Never a secret.
 *
 * Built from memory: the security facts once at start, the orchestrator state and the runtime
 * config from their caches (no KV read while they are younger than a second), and the JSON text
 * once per combination of the two. `attention` (docs/console_attention.md) reads the days from
 * today on, at most once a second and again after any write of what it is read from
 * ({@link InputGeneration}: read after write).
 * @module
 */
import {
  ManualAction,
  type StatusBody as StatusBodyType,
  StatusBodySchema as StatusBody,
} from "../../../lib/wire/status.ts";

/** A concrete path of each manual action's route (any day will do). */
const ACTION_PATHS: Record<ManualAction, string> = {
  orchestrate: "/v1/orchestrate",
  forecast: "/v1/delivery-days/2000-01-01/forecast",
  aggregate: "/v1/delivery-days/2000-01-01/aggregate",
  publish: "/v1/delivery-days/2000-01-01/publish",
  submit: "/v1/delivery-days/2000-01-01/submit",
  import_answers: "/v1/schedule-responses/import",
};
import type { RouteContext } from "../../../lib/http/route_context.ts";
import type { EffectiveConfig } from "../../../lib/config/fields.ts";
import { json } from "../../../lib/http/respond.ts";
import type { OrchestratorState, OrchestratorStateStore } from "../../../lib/orchestrator/state.ts";
import { publishTarget } from "../../../lib/pipeline/publish.ts";
import type { PassLog } from "../../../lib/orchestrator/passes.ts";
import type { PassHealth } from "../../../lib/wire/orchestrator.ts";
import { VERSION } from "../../../lib/version.ts";
import type { FactsCache, RetentionFacts } from "../../../lib/retention/facts.ts";
import { archiveWhere } from "../../../lib/retention/target_of.ts";
import { attention as attentionOf, type AttentionItem } from "../../../lib/console/attention.ts";
import { consoleDays } from "../../../lib/console/console_days.ts";
import { berlinDate } from "../../../lib/console/day_texts.ts";
import { listRejected } from "../../../lib/fahrplan/rejected_answers.ts";
import { readModelsSummary } from "../../../lib/pipeline/forecast_models.ts";
import { clearingAttention } from "../../../lib/console/clearing_attention_source.ts";
import type { InputGeneration } from "../../../lib/store/input_generation.ts";

/**
 * Registers the status endpoint.
 * @param orchestrator the app's cached orchestrator state (the one start/stop write through)
 * @param inputs where the attention list's stored inputs stand: a cached list is used only while
 *   it is unchanged
 */
export function registerStatus(
  ctx: RouteContext,
  orchestrator: OrchestratorStateStore,
  passes: PassLog,
  facts: FactsCache,
  inputs: InputGeneration,
): void {
  const s = ctx.settings;
  const callers = ctx.keys.callersPerScope();
  const credentialTypes: ("api_key" | "bearer")[] = [];
  if (ctx.keys.size) credentialTypes.push("api_key");
  if (s.oidc) credentialTypes.push("bearer");
  const security: StatusBodyType["security"] = {
    credential_types: credentialTypes,
    api_key_callers: callers,
    api_keys: ctx.keys.keysPerScope(),
    oidc: s.oidc
      ? {
        issuer: s.oidc.issuer,
        audience: s.oidc.audience,
        jwks_url: s.oidc.jwksUrl,
        scope_external: s.oidc.scopeExternal,
        scope_process: s.oidc.scopeProcess,
      }
      : null,
    unauthenticated_mode: s.allowUnauthenticated,
    fail_closed: credentialTypes.length === 0 && !s.allowUnauthenticated,
    rate_limit: { per_minute: s.rateLimitPerMinute, burst: s.rateLimitBurst },
    max_request_bytes: s.maxRequestBytes,
    trusted_proxies: s.trustedProxies,
  };
  // Read at the first answer, when every route is registered.
  let actions: ManualAction[] | undefined;
  const manualActions = (): ManualAction[] =>
    actions ??= ManualAction.options.filter((a) =>
      ctx.routes.methodsFor(ACTION_PATHS[a]).includes("POST")
    );
  const kvKind = /^https?:/.test(s.kvPath)
    ? "kv_connect"
    : s.kvPath === ""
    ? "deploy_managed"
    : s.kvPath === ":memory:"
    ? "memory"
    : "local_file";
  ctx.routes.add({
    method: "get",
    path: "/v1/console/status",
    access: "process",
    summary: "Orchestrator state, version, configuration facts and security posture",
    tags: ["console"],
    responses: { 200: { description: "status", schema: StatusBody } },
  }, () => {
    // The hot path: everything cached (this second's attention list included) is answered
    // without a promise; otherwise the missing parts are read first.
    const state = orchestrator.peek();
    const cfg = ctx.config.peekSnapshot();
    const health = passes.peek();
    const size = facts.peek();
    if (state && cfg && health !== undefined && size !== undefined) {
      const items = attentionCached(state, cfg, health);
      if (items) return json(body(state, cfg, health, size, items));
    }
    return Promise.all([
      state ?? orchestrator.current(),
      cfg ?? ctx.config.snapshot(),
      health !== undefined ? health : passes.current(),
      size !== undefined ? size : facts.current(),
    ]).then(async ([st, c, h, f]) => json(body(st, c, h, f, await attentionNow(st, c, h))));
  });

  // The attention list reads the days from KV: computed at most once a second while nothing it
  // is read from changed (the stored inputs' generation, the config, the orchestrator's state and
  // pass health), and by one request at a time (the others of that moment wait for the same list,
  // not read KV again).
  type AttentionKey = {
    second: number;
    generation: number;
    state: Readonly<OrchestratorState>;
    cfg: Readonly<EffectiveConfig>;
    health: Readonly<PassHealth> | null;
  };
  const keyNow = (
    state: Readonly<OrchestratorState>,
    cfg: Readonly<EffectiveConfig>,
    health: Readonly<PassHealth> | null,
  ): AttentionKey => ({
    second: Math.floor(ctx.clock.now() / 1000),
    generation: inputs.current(),
    state,
    cfg,
    health,
  });
  const sameKey = (a: AttentionKey | undefined, b: AttentionKey) =>
    a !== undefined && a.second === b.second && a.generation === b.generation &&
    a.state === b.state && a.cfg === b.cfg && a.health === b.health;
  let attentionCache: { key: AttentionKey; items: AttentionItem[] } | undefined;
  let computing: { key: AttentionKey; items: Promise<AttentionItem[]> } | undefined;
  /** The attention list when it was computed for the same key (the hot path: no allocation). */
  const attentionCached = (
    state: Readonly<OrchestratorState>,
    cfg: Readonly<EffectiveConfig>,
    health: Readonly<PassHealth> | null,
  ): AttentionItem[] | undefined => {
    const k = attentionCache?.key;
    return k && k.second === Math.floor(ctx.clock.now() / 1000) &&
        k.generation === inputs.current() && k.state === state && k.cfg === cfg &&
        k.health === health
      ? attentionCache!.items
      : undefined;
  };
  const attentionNow = (
    state: Readonly<OrchestratorState>,
    cfg: Readonly<EffectiveConfig>,
    health: Readonly<PassHealth> | null,
  ): Promise<AttentionItem[]> => {
    // The key is taken before anything is read: a write landing during the reads changes the
    // generation, so the next request computes again.
    const key = keyNow(state, cfg, health);
    if (attentionCache && sameKey(attentionCache.key, key)) {
      return Promise.resolve(attentionCache.items);
    }
    if (computing && sameKey(computing.key, key)) return computing.items;
    const items = computeAttention(key);
    const mine = { key, items };
    computing = mine;
    const done = () => {
      if (computing === mine) computing = undefined;
    };
    items.then(done, done);
    return items;
  };
  const computeAttention = async (key: AttentionKey): Promise<AttentionItem[]> => {
    const now = ctx.clock.now();
    const days = await consoleDays(ctx.kv, key.cfg, now, { from: berlinDate(now) });
    const items = attentionOf({
      days: [...days.delivery_days, ...days.without_state],
      orchestrator: {
        state: key.state.state,
        failed_passes_in_a_row: key.health?.failed_in_a_row ?? 0,
      },
      nowMs: now,
      rejected: await listRejected(ctx.kv),
      learned: await readModelsSummary(ctx.kv),
      clearing: await clearingAttention(ctx.kv, now),
    });
    attentionCache = { key, items };
    return items;
  };

  // The JSON text of the last (state, config, passes, minute): shared objects that stay the same
  // while nothing changes, so a hot status route serialises once a minute at most.
  let last:
    | {
      state: object;
      cfg: object;
      health: object | null;
      size: object | null;
      attention: object;
      minute: number;
      text: string;
    }
    | undefined;
  const body = (
    state: Readonly<OrchestratorState>,
    cfg: Readonly<EffectiveConfig>,
    health: Readonly<PassHealth> | null,
    size: Readonly<RetentionFacts> | null,
    attention: AttentionItem[],
  ): string => {
    const minute = Math.floor(ctx.clock.now() / 60_000);
    if (
      last && last.state === state && last.cfg === cfg && last.health === health &&
      last.size === size && last.attention === attention &&
      last.minute === minute
    ) return last.text;
    const target = publishTarget(cfg);
    const text = JSON.stringify({
      version: VERSION,
      orchestrator: {
        ...state,
        last_pass: health?.last_pass ?? null,
        failed_passes_in_a_row: health?.failed_in_a_row ?? 0,
        // The cron ticks at every minute; while stopped no pass is due.
        next_pass_at: state.state === "running"
          ? new Date((minute + 1) * 60_000).toISOString()
          : null,
      },
      security,
      storage: {
        kv: kvKind,
        publish_target: target,
        outbox_dir: target === "outbox" ? cfg.outbox_dir : null,
      },
      manual_actions: manualActions(),
      retention: retention(s, cfg, size),
      attention,
    });
    last = { state, cfg, health, size, attention, minute, text };
    return text;
  };
}

/** The status's retention part: the rule, the archive's place and the store's size facts. */
function retention(
  s: RouteContext["settings"],
  cfg: Readonly<EffectiveConfig>,
  size: Readonly<RetentionFacts> | null,
): StatusBodyType["retention"] {
  const where = archiveWhere(cfg as EffectiveConfig, s.archiveDir);
  return {
    retention_days: s.retentionDays,
    archive_target: where.target,
    archive_dir: where.dir,
    days_kept: size?.days_kept ?? null,
    oldest_day: size?.oldest_day ?? null,
    events_kept: size?.events_kept ?? null,
    counted_at: size?.counted_at ?? null,
    last_pruning: size?.last_pruning ?? null,
  };
}
