/**
 * The metrics registry of one app (docs/metrics.md): `prom-client`'s {@link Registry}, rendered in
 * the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/). Knows nothing of the domain:
 * the service's metrics register themselves on it (`http_metrics.ts`, `pipeline_metrics.ts`,
 * `state_gauges.ts`). Every name starts with {@link METRIC_PREFIX} and follows the Prometheus
 * naming rules (base units: seconds, bytes; `_total` for counters).
 * @module
 */
import { Registry } from "prom-client";

export { Counter, Gauge, Histogram, Registry } from "prom-client";

/** Prefix of every metric of the service. */
export const METRIC_PREFIX = "fahrplan_";

/** `Content-Type` of a scrape: the text exposition format 0.0.4. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** A fresh, empty registry (one per app, so apps in one test process do not share metrics). */
export function createRegistry(): Registry {
  return new Registry();
}

/**
 * Renders every metric of `registry` for a scrape; gauges computed from state run their collect
 * callbacks now.
 * @returns the exposition text (ends with a newline)
 * @throws whatever a collect callback throws
 */
export async function renderMetrics(registry: Registry): Promise<string> {
  return await registry.metrics();
}
