/**
 * Builds the service (docs/architecture.md: "Layers", "Request path") on a given KV store and clock, so that `main.ts` and the
 * tests construct exactly the same app.
 *
 * Request path (per route, built once by {@link requestPath}): declared body length →
 * (scoped routes) authenticate → rate limit (left out with `RATE_LIMIT_PER_MINUTE=0`) → scope
 * guard → counted body → handler → audit (refusals throttled per address and caller) →
 * redaction of the answer → response headers (API or console page, `lib/http/respond.ts`). No
 * body byte is read before the credential and scope are checked. A request id is made only for
 * an internal error: it is in the 500 body, the process-log line and `X-Request-Id`.
 *
 * One {@link Redactor} masks every configured secret (API keys, the stream-token key, the
 * third-party secrets of the configuration) in answers, events, log lines and quoted foreign
 * text (docs/access-control.md, "Secrets").
 *
 * The config overlay and the orchestrator state are cached in memory (own changes seen at once,
 * other replicas' within a second, `kv.watch` where it reports them): `close()` stops the watches.
 *
 * @example
 * const bridge = await createApp({ settings: loadSettings(env), kv: await Deno.openKv(path) });
 * Deno.serve(bridge.fetch);
 * @module
 */
import { type Context, Hono } from "hono";
import { registerConsole } from "./routes/console.tsx";
import { registerDeliveryDayOverview } from "./routes/v1/console/delivery_days.ts";
import { registerDeliveryDays } from "./routes/v1/delivery_days.ts";
import { registerScheduleResponses, registerSchedules } from "./routes/v1/schedules.ts";
import { registerStatusRequests } from "./routes/v1/status_requests.ts";
import { registerForecasts } from "./routes/v1/forecasts.ts";
import { registerMarketLocations } from "./routes/v1/market_locations.ts";
import { registerOrchestrate } from "./routes/v1/orchestrate.ts";
import { registerActuals } from "./routes/v1/actuals.ts";
import { registerSettlement } from "./routes/v1/settlement.ts";
import { registerClearing } from "./routes/v1/clearing.ts";
import { registerPostDelivery } from "./routes/v1/post_delivery.ts";
import { registerWeather } from "./routes/v1/weather.ts";
import { registerForecastModels } from "./routes/v1/forecast_models.ts";
import { registerHealth } from "./routes/health.ts";
import { registerConfig } from "./routes/v1/console/config.ts";
import { registerEvents } from "./routes/v1/console/events.ts";
import { registerOrchestratorControl } from "./routes/v1/console/orchestrator.ts";
import { registerStatus } from "./routes/v1/console/status.ts";
import { registerPasses } from "./routes/v1/console/passes.ts";
import { PassHistory } from "./lib/orchestrator/pass_history.ts";
import { registerStreamToken } from "./routes/v1/console/stream_token.ts";
import { registerOpenApi } from "./routes/v1/openapi.ts";
import { registerMetrics } from "./routes/metrics.ts";
import { createRegistry, type Registry } from "./lib/metrics/registry.ts";
import { HttpMetrics } from "./lib/metrics/http_metrics.ts";
import { PipelineMetrics } from "./lib/metrics/pipeline_metrics.ts";
import { registerStateGauges } from "./lib/metrics/state_gauges.ts";
import { registerSettlementGauges } from "./lib/metrics/settlement_gauges.ts";
import { lockedDeviationSource, storeFactsSource } from "./lib/metrics/hook_sources.ts";
import { routeTiming } from "./lib/http/route_timing.ts";
import { RuntimeConfig } from "./lib/config/runtime_config.ts";
import { KeyRing } from "./lib/auth/api_keys.ts";
import { OidcVerifier } from "./lib/auth/oidc.ts";
import { StreamTokens } from "./lib/auth/stream_token.ts";
import { type Clock, systemClock } from "./lib/clock.ts";
import type { ServiceContext } from "./lib/context.ts";
import type { RouteContext } from "./lib/http/route_context.ts";
import { Orchestrator } from "./lib/orchestrator/orchestrator.ts";
import { PassLog } from "./lib/orchestrator/passes.ts";
import { marketLocationIndexSettled } from "./lib/pipeline/master_data.ts";
import type { AppEnv } from "./lib/http/env.ts";
import { HttpProblem, problem } from "./lib/http/errors.ts";
import { domainErrorResponse } from "./lib/http/problem_map.ts";
import { DomainError } from "./lib/domain/errors.ts";
import { audit, denialSummaryEvent } from "./lib/http/middleware/audit.ts";
import { authenticate } from "./lib/http/middleware/authenticate.ts";
import { countedBody, declaredLengthLimit } from "./lib/http/middleware/body_limit.ts";
import { DenialThrottle } from "./lib/http/denial_throttle.ts";
import { answerRedaction } from "./lib/http/redact_answer.ts";
import { compressAnswers } from "./lib/http/middleware/compress.ts";
import { type LogSink, ProcessLog } from "./lib/log.ts";
import { ServeBindings } from "./lib/http/client_address.ts";
import { parseAddressRanges } from "./lib/net/addresses.ts";
import { rateLimit } from "./lib/http/middleware/rate_limit.ts";
import { requireScope } from "./lib/http/middleware/require_scope.ts";
import { streamAuth } from "./lib/http/middleware/stream_auth.ts";
import { TokenBuckets } from "./lib/http/rate_limiter.ts";
import { requestPath } from "./lib/http/request_path.ts";
import { encodeSseEvents, encodeSseUpdate } from "./lib/http/sse.ts";
import { RouteTable } from "./lib/http/route_table.ts";
import { OrchestratorStateStore } from "./lib/orchestrator/state.ts";
import { Pruner } from "./lib/retention/pruner.ts";
import { FactsCache } from "./lib/retention/facts.ts";
import type { Settings } from "./lib/settings.ts";
import { setEssDtdDir } from "./lib/fahrplan/ess_dtd_dir.ts";
import { EventHub, HEARTBEAT_MS } from "./lib/store/event_hub.ts";
import { withLockRetry } from "./lib/store/kv.ts";
import { InputGeneration, markInputWrites } from "./lib/store/input_generation.ts";
import { EventLog } from "./lib/store/events.ts";
import { Redactor } from "./lib/store/redactor.ts";
import { isLocalStoreFile, PassOffload } from "./lib/pipeline/pass_offload.ts";

/** What the app is built from. */
export interface AppDeps {
  settings: Settings;
  kv: Deno.Kv;
  /** Default: the system clock. */
  clock?: Clock;
  /** Heartbeat period of the live stream in ms (default {@link HEARTBEAT_MS}, 15 s). */
  streamHeartbeatMs?: number;
  /** Where process-log lines go (default: stdout/stderr; tests collect them). */
  logSink?: LogSink;
}

/** A built app: its fetch handler and the services behind it. */
export interface BridgeApp {
  /** Pass to `Deno.serve`; the second argument carries the client address. */
  fetch: (req: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response>;
  hono: Hono<AppEnv>;
  ctx: RouteContext;
  /** The app's orchestrator: `Deno.cron` calls its `tick` (main.ts). */
  orchestrator: Orchestrator;
  /** The app's metrics (docs/metrics.md): `GET /metrics` and the metrics listener render it. */
  metrics: Registry;
  /**
   * Ends every open live stream with a last `stream_end` message and refuses new ones the same
   * way (main.ts calls it on SIGTERM before the server's shutdown, which waits for open answers).
   */
  endStreams(): void;
  /**
   * Stops the KV watches of the caches and waits for pending event writes and a running build of
   * the registered-MaLo-ID index; the KV store stays
   * open (the caller owns it and closes it afterwards).
   */
  close(): Promise<void>;
}

/**
 * Builds the app. Records an `auth_disabled` warning event when `ALLOW_UNAUTHENTICATED=true`
 * (docs/access-control.md, "Fail closed"; on every start).
 */
export async function createApp(deps: AppDeps): Promise<BridgeApp> {
  const { settings } = deps;
  setEssDtdDir(settings.essDtdDir ?? null);
  // Every write retries "database is locked" (replicas on one SQLite file) below the domain.
  // … and every write of what the console's attention list is read from is marked in the same
  // atomic, so the status route never answers from a list computed before it.
  const kv = markInputWrites(withLockRetry(deps.kv));
  const inputs = new InputGeneration(kv);
  const clock = deps.clock ?? systemClock;
  const hono = new Hono<AppEnv>();
  // One redaction step for every outward text: answers, events, log lines, quoted foreign text
  // (docs/access-control.md, "Secrets"). The config adds its secrets as it learns them.
  const redactor = new Redactor([
    ...settings.apiKeys.map((k) => k.secret),
    settings.kvAccessToken,
  ]);
  const log = new ProcessLog(redactor, clock, { level: settings.logLevel, sink: deps.logSink });
  // Prometheus metrics of this app (docs/metrics.md).
  const metrics = createRegistry();
  const pipelineMetrics = new PipelineMetrics(metrics);
  // Every warning and error event (info with LOG_LEVEL=info) is also a process-log line.
  const events = new EventLog(kv, clock, redactor, {
    onStored: (records) => {
      records.forEach((r) => log.event(r));
      pipelineMetrics.onEvents(records);
    },
  });
  const keys = new KeyRing(settings.apiKeys);
  const oidc = settings.oidc ? new OidcVerifier(settings.oidc, clock) : undefined;
  const streamTokens = await StreamTokens.create(keys.processSecrets(), kv, clock);
  for (const form of streamTokens.keyForms()) redactor.add(form);
  const perCaller = new TokenBuckets(settings.rateLimitPerMinute, settings.rateLimitBurst, clock);
  const failures = new TokenBuckets(settings.rateLimitPerMinute, settings.rateLimitBurst, clock);
  const authn = authenticate({
    keys,
    oidc,
    allowUnauthenticated: settings.allowUnauthenticated,
    failures,
  });
  const limit = perCaller.enabled ? [rateLimit(perCaller)] : [];
  const stream = streamAuth({
    tokens: streamTokens,
    configured: keys.size > 0 || oidc !== undefined,
    allowUnauthenticated: settings.allowUnauthenticated,
    failures,
  });
  const onError = (err: unknown, _c: Context<AppEnv>): Response => {
    if (err instanceof DomainError) {
      // A store that stayed contended (replicas) answers 503; the operator sees it in the log.
      if (err.code === "ERR_KV_CONTENTION") log.warn("store_contended", err.message);
      return domainErrorResponse(err);
    }
    if (err instanceof HttpProblem) return err.getResponse();
    const id = crypto.randomUUID();
    log.error("request_failed", `request ${id} failed`, err, { request_id: id });
    return problem(500, `Internal error; request id ${id}.`, { "x-request-id": id });
  };
  const scopeGuards = { process: requireScope("process"), external: requireScope("external") };
  const denials = new DenialThrottle(clock);
  // docs/access-control.md, "Client address": without trusted proxies the client is the peer.
  const trusted = parseAddressRanges(settings.trustedProxies.join(",")).ranges;
  const proxies = trusted.size ? trusted : undefined;
  const writeDenialSummaries = (all: boolean) =>
    Promise.all(denials.flush(all).map((s) => events.append(denialSummaryEvent(s))));
  // Summaries of minutes nobody was refused after are written by this timer (or at close).
  const denialTimer = setInterval(() => writeDenialSummaries(false).catch(() => {}), 60_000);
  Deno.unrefTimer(denialTimer);
  const routes = new RouteTable(
    hono,
    requestPath({
      first: [declaredLengthLimit(settings.maxRequestBytes)],
      guard: (access) => access === "stream" ? [stream] : [authn, ...limit, scopeGuards[access]],
      body: [countedBody(settings.maxRequestBytes)],
      audit: audit(events, denials),
      redact: answerRedaction(redactor),
      onError,
      timing: routeTiming(new HttpMetrics(metrics)),
    }),
  );
  const config = new RuntimeConfig(kv, settings.configEnv, redactor);
  const orchestratorState = new OrchestratorStateStore(kv, settings.orchestratorAutostart);
  const platformClient = settings.platformCaFile
    ? Deno.createHttpClient({ caCerts: [await Deno.readTextFile(settings.platformCaFile)] })
    : undefined;
  const services: ServiceContext = {
    settings,
    kv,
    clock,
    events,
    redactor,
    log,
    keys,
    streamTokens,
    config,
    platformClient,
    passOffload: settings.pipelineWorker && isLocalStoreFile(settings.kvPath)
      ? new PassOffload(settings.kvPath, () => inputs.touch())
      : undefined,
  };
  // One orchestrator per app: its scheduled ticks and manual passes share one guard.
  const passes = new PassLog(kv, { onRecord: (pass) => pipelineMetrics.onPass(pass) });
  const history = new PassHistory(kv, clock);
  const retentionFacts = new FactsCache(kv);
  const orchestrator = new Orchestrator(services, passes, {
    onPass: (p) => history.record(p),
    pruner: new Pruner(services),
  });
  const ctx: RouteContext = { ...services, routes, orchestrator };

  hono.onError(onError);
  // Outermost: compresses the final (redacted) answer when the client accepts it.
  hono.use("*", compressAnswers());
  // These answers quote the request and skip the route pipeline (and its redaction step): the
  // sentence passes the redactor here, so a key pasted into a URL does not come back whole.
  hono.notFound((c) => {
    const allowed = routes.methodsFor(c.req.path);
    const path = redactor.text(c.req.path, 200);
    const method = redactor.text(c.req.method, 40);
    if (allowed.length === 0) return problem(404, `No route for ${method} ${path}.`);
    return problem(405, `${path} does not answer ${method}; it answers ${allowed.join(", ")}.`, {
      allow: allowed.join(", "),
    });
  });

  registerHealth(ctx);
  registerConsole(ctx);
  registerStatus(ctx, orchestratorState, passes, retentionFacts, inputs);
  registerStreamToken(ctx);
  registerOrchestratorControl(ctx, orchestratorState);
  registerPasses(ctx, history);
  const hub = new EventHub(events, encodeSseEvents, {
    heartbeatMs: deps.streamHeartbeatMs ?? HEARTBEAT_MS,
    encodeUpdate: encodeSseUpdate,
  });
  registerEvents(ctx, hub);
  registerConfig(ctx, config);
  registerDeliveryDayOverview(ctx);
  registerMarketLocations(ctx);
  registerForecastModels(ctx);
  registerForecasts(ctx);
  registerDeliveryDays(ctx);
  registerSchedules(ctx);
  registerScheduleResponses(ctx);
  registerStatusRequests(ctx);
  registerOrchestrate(ctx);
  // After delivery (docs/settlement.md).
  registerActuals(ctx);
  registerSettlement(ctx);
  registerClearing(ctx);
  registerPostDelivery(ctx);
  registerWeather(ctx);
  registerMetrics(ctx, metrics);
  registerStateGauges(metrics, {
    kv,
    clock,
    activeAreas: async () => (await config.effective()).active_control_areas,
    orchestratorState: () => orchestratorState.current(),
    passHealth: () => passes.current(),
    streamClients: () => hub.size,
    lockedDeviationMwh: lockedDeviationSource(
      kv,
      clock,
      async () => (await config.effective()).intraday_lead_minutes,
    ),
    storeFacts: storeFactsSource(retentionFacts),
    onError: (err) => log.error("metrics_failed", "the state gauges could not be read", err),
  });
  registerSettlementGauges(metrics, {
    kv,
    clock,
    config: () => config.effective(),
    onError: (err) => log.error("metrics_failed", "the settlement gauges could not be read", err),
  });
  registerOpenApi(ctx);

  if (settings.allowUnauthenticated) {
    await events.append({
      kind: "auth_disabled",
      level: "warning",
      message:
        "Authentication is switched off (ALLOW_UNAUTHENTICATED=true): every route is open. Never set this in a deployment.",
    });
  }

  config.watch();
  orchestratorState.watch();
  passes.watch();
  retentionFacts.watch();
  inputs.watch();
  return {
    fetch: (req, info) => hono.fetch(req, info ? new ServeBindings(info, req, proxies) : {}),
    hono,
    ctx,
    orchestrator,
    metrics,
    endStreams: () => hub.shutdown(),
    close: async () => {
      clearInterval(denialTimer);
      await writeDenialSummaries(true);
      await Promise.all([
        config.close(),
        orchestratorState.close(),
        passes.close(),
        retentionFacts.close(),
        inputs.close(),
      ]);
      await events.drain();
      await marketLocationIndexSettled(kv);
      platformClient?.close();
      services.passOffload?.close();
    },
  };
}
