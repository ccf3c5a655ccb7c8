/**
 * A histogram for hot paths (docs/metrics.md, "Cost"): each label set is a {@link HistogramSeries}
 * made once, whose `observe` only finds the bucket and adds to plain numbers — no allocation, no
 * label hashing per observation (`prom-client`'s own `observe` builds a label key string each
 * time). The registry renders it like any `prom-client` histogram (`_bucket{le}` cumulative,
 * `_sum`, `_count`), from the numbers, when scraped. Domain-free.
 * @module
 */
import type { Metric } from "prom-client";
import type { Registry } from "./registry.ts";

/** One label set of a {@link CountedHistogram}. */
export class HistogramSeries {
  /** The label values of this series. */
  readonly labels: Readonly<Record<string, string>>;
  /** Observations per bucket (not cumulative); the last one is `+Inf`. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  #bounds: readonly number[];

  constructor(labels: Record<string, string>, bounds: readonly number[]) {
    this.labels = labels;
    this.#bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }

  /** Counts one observation (in the histogram's unit, e.g. seconds). */
  observe(value: number): void {
    const b = this.#bounds;
    let i = 0;
    while (i < b.length && value > b[i]) i++;
    this.counts[i]++;
    this.sum += value;
    this.count++;
  }
}

/** A histogram whose series are counted by their holders and rendered at scrape time. */
export class CountedHistogram {
  #name: string;
  #bounds: readonly number[];
  #series: HistogramSeries[] = [];

  /**
   * Registers the histogram on `registry`.
   * @param opts.name full metric name (ends in the unit, e.g. `_seconds`)
   * @param opts.buckets upper bounds, ascending (`+Inf` is added)
   */
  constructor(
    registry: Registry,
    opts: { name: string; help: string; buckets: readonly number[] },
  ) {
    this.#name = opts.name;
    this.#bounds = [...opts.buckets];
    const name = opts.name;
    const help = opts.help;
    // The registry asks a metric for `get()` (name, help, type and the sample values) when it is
    // scraped and calls `reset()` on `resetMetrics()`.
    const metric = {
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      get: () =>
        Promise.resolve({
          name,
          help,
          type: "histogram",
          aggregator: "sum",
          values: this.#values(),
        }),
      reset: () => {
        for (const s of this.#series) {
          s.counts.fill(0);
          s.sum = 0;
          s.count = 0;
        }
      },
    };
    registry.registerMetric(metric as unknown as Metric);
  }

  /** A new series with these label values; keep it and call its `observe`. */
  series(labels: Record<string, string>): HistogramSeries {
    const s = new HistogramSeries(labels, this.#bounds);
    this.#series.push(s);
    return s;
  }

  /** The samples: cumulative buckets with `le`, then `_sum` and `_count`, per series. */
  #values(): { value: number; labels: Record<string, string | number>; metricName: string }[] {
    const out: { value: number; labels: Record<string, string | number>; metricName: string }[] =
      [];
    const bucket = `${this.#name}_bucket`;
    for (const s of this.#series) {
      let acc = 0;
      for (let i = 0; i <= this.#bounds.length; i++) {
        acc += s.counts[i];
        const le = i < this.#bounds.length ? this.#bounds[i] : "+Inf";
        out.push({ value: acc, labels: { le, ...s.labels }, metricName: bucket });
      }
      out.push({ value: s.sum, labels: { ...s.labels }, metricName: `${this.#name}_sum` });
      out.push({ value: s.count, labels: { ...s.labels }, metricName: `${this.#name}_count` });
    }
    return out;
  }
}
