/**
 * Composition root (docs/architecture.md, "Layers"): settings → KV → app → `Deno.serve`.
 * Exits with status 1 and a message naming the variable when the environment is invalid.
 * @module
 */
import { type BridgeApp, createApp } from "./app.ts";
import { loadSettings, SettingsError } from "./lib/settings.ts";
import { openKv } from "./lib/store/kv.ts";
import { serveMetrics } from "./lib/http/metrics_listener.ts";
import { VERSION } from "./lib/version.ts";

/** How long a stop waits for open answers after the streams ended, in ms (then it exits). */
const SHUTDOWN_GRACE_MS = 4_000;

/** The app this process serves; the cron below ticks it. */
let current: BridgeApp | undefined;
const replica = `replica-${crypto.randomUUID().slice(0, 8)}`;

// Registered at module top level, as Deno Deploy requires (docs/architecture.md, "Stack"). Every minute; a tick is a
// no-op while the orchestrator is stopped or another replica holds this minute's lease.
Deno.cron("orchestrator", "* * * * *", async () => {
  if (!current) return;
  try {
    await current.orchestrator.tick(replica);
  } catch (err) {
    current.ctx.log.error("orchestration_error", "orchestrator tick failed", err);
  }
});

/** Starts the service from the environment; resolves with the running server. */
export async function start(env: Record<string, string | undefined>): Promise<Deno.HttpServer> {
  const settings = loadSettings(env);
  const kv = await openKv(settings.kvPath);
  const bridge = await createApp({ settings, kv });
  current = bridge;
  if (settings.apiKeys.length === 0 && !settings.oidc && !settings.allowUnauthenticated) {
    bridge.ctx.log.warn(
      "fail_closed",
      "no API key and no OIDC issuer configured: every authenticated route answers 503",
    );
  }
  const server = Deno.serve({
    port: settings.port,
    hostname: settings.hostname,
    // The start-up line is written whatever LOG_LEVEL says: it tells where the service listens.
    onListen: ({ hostname, port }) =>
      console.log(
        lifecycleLine("startup", `scheduling bridge listening on http://${hostname}:${port}`),
      ),
  }, bridge.fetch);
  // The metrics without credentials, on their own address (docs/metrics.md), when asked for.
  const metricsServer = settings.metricsPort === undefined ? undefined : serveMetrics({
    hostname: settings.metricsHostname,
    port: settings.metricsPort,
    registry: bridge.metrics,
    redactor: bridge.ctx.redactor,
    onListen: ({ hostname, port }) =>
      console.log(
        lifecycleLine(
          "startup",
          `metrics without credentials at http://${hostname}:${port}/metrics`,
        ),
      ),
  });
  let stopping = false;
  const stop = async (signal: Deno.Signal) => {
    if (stopping) return;
    stopping = true;
    console.log(lifecycleLine("shutdown", `scheduling bridge stopping on ${signal}`));
    // Open live streams would keep `shutdown` waiting for ever: end them first (a last
    // `stream_end` message), then stop listening and let the other answers finish. Whatever
    // still hangs after SHUTDOWN_GRACE_MS is cut, so a restart never waits on a console.
    const cut = setTimeout(() => {
      console.log(lifecycleLine("shutdown", "answers still open after the grace period: exiting"));
      Deno.exit(0);
    }, SHUTDOWN_GRACE_MS);
    bridge.endStreams();
    await metricsServer?.shutdown();
    await server.shutdown();
    await bridge.close();
    kv.close();
    clearTimeout(cut);
    Deno.exit(0);
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    if (Deno.build.os !== "windows") Deno.addSignalListener(signal, () => stop(signal));
  }
  return server;
}

/** One JSON process-log line of the service's start or stop (docs/architecture.md, "Process log"). */
function lifecycleLine(kind: "startup" | "shutdown", message: string): string {
  return JSON.stringify({
    ts: new Date().toISOString(),
    level: "info",
    kind,
    message,
    version: VERSION,
  });
}

if (import.meta.main) {
  try {
    await start(Deno.env.toObject());
  } catch (err) {
    if (err instanceof SettingsError) {
      console.error(err.message);
      Deno.exit(1);
    }
    throw err;
  }
}
