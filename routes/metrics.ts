/**
 * `GET /metrics` (docs/metrics.md): the service's metrics in the Prometheus text exposition
 * format 0.0.4, process scope (a Prometheus scrapes it with a process API key or an OAuth 2.0
 * client-credentials token of the OIDC issuer). The same text is served without credentials on
 * the metrics listener when `METRICS_PORT` is set (`lib/http/metrics_listener.ts`).
 * @module
 */
import { metricsResponse } from "../lib/http/metrics_listener.ts";
import type { RouteContext } from "../lib/http/route_context.ts";
import type { Registry } from "../lib/metrics/registry.ts";

/** Registers the scrape route of `registry`. */
export function registerMetrics(ctx: RouteContext, registry: Registry): void {
  ctx.routes.add({
    method: "get",
    path: "/metrics",
    access: "process",
    summary: "Prometheus metrics (text exposition format 0.0.4)",
    tags: ["meta"],
    responses: {
      200: {
        description: "every metric of the service (docs/metrics.md)",
        alternatives: [{
          contentType: "text/plain; version=0.0.4",
          schema: { type: "string" },
          description: "Prometheus text exposition format 0.0.4",
        }],
      },
    },
  }, () => metricsResponse(registry));
}
