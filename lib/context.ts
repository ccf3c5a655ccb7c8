/**
 * The services of one app (docs/architecture.md, "Layers": everything gets its dependencies as
 * arguments). Routes receive them all (with the route table: `RouteContext`); a part of the
 * domain declares the few it uses, as a `Pick` of {@link ServiceContext}, so a reader sees what
 * it depends on and a test can hand it just those.
 * @module
 */
import type { KeyRing } from "./auth/api_keys.ts";
import type { StreamTokens } from "./auth/stream_token.ts";
import type { RuntimeConfig } from "./config/runtime_config.ts";
import type { Clock } from "./clock.ts";
import type { Settings } from "./settings.ts";
import type { EventLog } from "./store/events.ts";
import type { ProcessLog } from "./log.ts";
import type { Redactor } from "./store/redactor.ts";
import type { PassOffload } from "./pipeline/pass_offload.ts";

/** Shared services of one app instance. */
export interface ServiceContext {
  settings: Settings;
  kv: Deno.Kv;
  clock: Clock;
  events: EventLog;
  /** The one redaction step of answers, events, log lines and quoted foreign text. */
  redactor: Redactor;
  /** Process log (stderr/stdout), redacted. */
  log: ProcessLog;
  keys: KeyRing;
  streamTokens: StreamTokens;
  /** Runtime configuration (environment + console overlay). */
  config: RuntimeConfig;
  /** TLS client for the market platform when `MARKET_PLATFORM_CA_FILE` is set. */
  platformClient?: Deno.HttpClient;
  /** Runs the forecast step and aggregation in a Worker (absent: in this thread). */
  passOffload?: PassOffload;
}

/**
 * What one pipeline step uses (`runStep`, `lib/pipeline/steps.ts`): KV, clock, the effective
 * configuration, the event log, the redactor, the market platform's TLS client and its backoff.
 */
export interface StepServices extends
  Pick<
    ServiceContext,
    "kv" | "clock" | "config" | "events" | "redactor" | "platformClient" | "passOffload"
  > {
  settings: Pick<Settings, "platformBackoffMs" | "orchestratorAutostart">;
}
