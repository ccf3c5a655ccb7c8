/**
 * The metrics registry of one app (docs/metrics.md): `prom-client`'s {@link Registry}, rendered in
 * the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/). Knows nothing of the domain:
 * the service's metrics register themselves on it (`http_metrics.ts`, `pipeline_metrics.ts`,
 * `state_gauges.ts`). Every name starts with {@link METRIC_PREFIX} and follows the Prometheus
 * naming rules (base units: seconds, bytes; `_total` for counters).
 * @module
 */
import type * as Prom from "prom-client";
import CounterClass from "prom-client/lib/counter.js";
import GaugeClass from "prom-client/lib/gauge.js";
import HistogramClass from "prom-client/lib/histogram.js";
import RegistryClass from "prom-client/lib/registry.js";

// The classes come from their own files of the package, the very ones its index exports: the
// index also loads what the service does not use (default process metrics with
// @opentelemetry/api, the push gateway's HTTP client, cluster aggregation), ~0.05 s CPU in every
// process that imports the app. Types are the package's own (index.d.ts).

/** prom-client's `Registry` (a set of metrics rendered together). */
export const Registry: typeof Prom.Registry = RegistryClass;
/** A prom-client registry, exposition format 0.0.4 by default. */
export type Registry<T extends Prom.RegistryContentType = Prom.PrometheusContentType> =
  Prom.Registry<T>;
/** prom-client's `Counter`. */
export const Counter: typeof Prom.Counter = CounterClass;
/** A prom-client counter with label names `T`. */
export type Counter<T extends string = string> = Prom.Counter<T>;
/** prom-client's `Gauge`. */
export const Gauge: typeof Prom.Gauge = GaugeClass;
/** A prom-client gauge with label names `T`. */
export type Gauge<T extends string = string> = Prom.Gauge<T>;
/** prom-client's `Histogram`. */
export const Histogram: typeof Prom.Histogram = HistogramClass;
/** A prom-client histogram with label names `T`. */
export type Histogram<T extends string = string> = Prom.Histogram<T>;

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
