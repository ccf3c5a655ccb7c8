/**
 * `GET /v1/console/status` (docs/architecture.md, "Console API"): orchestrator state, version, key configuration facts
 * and security posture. Never a secret.
 *
 * Built from memory: the security facts once at start, the orchestrator state and the runtime
 * config from their caches (no KV read while they are younger than a second), and the JSON text
 * once per combination of the two. `attention` (docs/console.md, "Attention") reads the days from
 * today on, at most once a second.
 * @module
 */
import {
  type StatusBody as StatusBodyType,
  StatusBodySchema as StatusBody,
} from "../../../lib/wire/status.ts";
import type { RouteContext } from "../../../lib/http/route_context.ts";
import type { EffectiveConfig } from "../../../lib/config/fields.ts";
import { json } from "../../../lib/http/respond.ts";
import type { OrchestratorState, OrchestratorStateStore } from "../../../lib/orchestrator/state.ts";
import { publishTarget } from "../../../lib/pipeline/publish.ts";
import type { PassLog } from "../../../lib/orchestrator/passes.ts";
import type { PassHealth } from "../../../lib/wire/orchestrator.ts";
import { VERSION } from "../../../lib/version.ts";
import { attention as attentionOf, type AttentionItem } from "../../../lib/console/attention.ts";
import { consoleDays } from "../../../lib/console/console_days.ts";
import { berlinDate } from "../../../lib/console/day_texts.ts";

/**
 * Registers the status endpoint.
 * @param orchestrator the app's cached orchestrator state (the one start/stop write through)
 */
export function registerStatus(
  ctx: RouteContext,
  orchestrator: OrchestratorStateStore,
  passes: PassLog,
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
  }, async () => {
    const [st, c, h] = await Promise.all([
      orchestrator.peek() ?? orchestrator.current(),
      ctx.config.peekSnapshot() ?? ctx.config.snapshot(),
      passes.peek() !== undefined ? passes.peek() as Readonly<PassHealth> | null : passes.current(),
    ]);
    return json(body(st, c, h, await attentionNow(st, c, h)));
  });

  // The attention list reads the days from KV: computed at most once a second.
  let attentionCache:
    | { second: number; state: object; health: object | null; items: AttentionItem[] }
    | undefined;
  const attentionNow = async (
    state: Readonly<OrchestratorState>,
    cfg: Readonly<EffectiveConfig>,
    health: Readonly<PassHealth> | null,
  ): Promise<AttentionItem[]> => {
    const now = ctx.clock.now();
    const second = Math.floor(now / 1000);
    const c = attentionCache;
    if (c && c.second === second && c.state === state && c.health === health) return c.items;
    const days = await consoleDays(ctx.kv, cfg.gate_closure_local_time, now, {
      from: berlinDate(now),
    });
    const items = attentionOf({
      days: [...days.delivery_days, ...days.without_state],
      orchestrator: { state: state.state, failed_passes_in_a_row: health?.failed_in_a_row ?? 0 },
      nowMs: now,
    });
    attentionCache = { second, state, health, items };
    return items;
  };

  // The JSON text of the last (state, config, passes, minute): shared objects that stay the same
  // while nothing changes, so a hot status route serialises once a minute at most.
  let last:
    | {
      state: object;
      cfg: object;
      health: object | null;
      attention: object;
      minute: number;
      text: string;
    }
    | undefined;
  const body = (
    state: Readonly<OrchestratorState>,
    cfg: Readonly<EffectiveConfig>,
    health: Readonly<PassHealth> | null,
    attention: AttentionItem[],
  ): string => {
    const minute = Math.floor(ctx.clock.now() / 60_000);
    if (
      last && last.state === state && last.cfg === cfg && last.health === health &&
      last.attention === attention && last.minute === minute
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
      attention,
    });
    last = { state, cfg, health, attention, minute, text };
    return text;
  };
}
