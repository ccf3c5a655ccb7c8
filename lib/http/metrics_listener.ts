/**
 * The scrape answer of `GET /metrics` and the separate metrics listener (docs/metrics.md): with
 * `METRICS_PORT` set, `main.ts` serves the same text on `METRICS_HOSTNAME:METRICS_PORT` (default
 * host 127.0.0.1) without credentials, for a sidecar or a Prometheus on the same host. That
 * listener answers nothing but `GET /metrics` (and `HEAD`); its text passes the one redaction
 * like every answer (docs/access-control.md, "Secrets").
 * @module
 */
import { METRICS_CONTENT_TYPE, type Registry, renderMetrics } from "../metrics/registry.ts";
import type { TextRedactor } from "../store/redactor.ts";
import { problem } from "./errors.ts";

/** The scrape: every metric of `registry` in the text exposition format 0.0.4. */
export async function metricsResponse(registry: Registry): Promise<Response> {
  return new Response(await renderMetrics(registry), {
    headers: { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" },
  });
}

/** Where and what the metrics listener serves. */
export interface MetricsListenerOptions {
  hostname: string;
  /** 0 picks a free port (tests). */
  port: number;
  registry: Registry;
  redactor: TextRedactor;
  /** Told the bound address once listening. */
  onListen?: (addr: { hostname: string; port: number }) => void;
  /** Aborting it closes the listener. */
  signal?: AbortSignal;
}

/**
 * Starts the metrics listener; close it with `shutdown()` or the `signal`.
 * @throws whatever `Deno.serve` throws (port in use, no permission)
 */
export function serveMetrics(opts: MetricsListenerOptions): Deno.HttpServer {
  return Deno.serve({
    hostname: opts.hostname,
    port: opts.port,
    signal: opts.signal,
    onListen: (addr) => opts.onListen?.(addr),
  }, async (req) => {
    const path = new URL(req.url).pathname;
    if (path !== "/metrics") {
      const quoted = opts.redactor.text(path, 200);
      return problem(404, `No route for ${req.method} ${quoted} here; scrape /metrics.`);
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      return problem(405, `/metrics does not answer ${req.method}; it answers GET, HEAD.`, {
        allow: "GET, HEAD",
      });
    }
    const res = await metricsResponse(opts.registry);
    const text = opts.redactor.text(await res.text());
    return new Response(req.method === "HEAD" ? null : text, { headers: res.headers });
  });
}
