/**
 * HTTP metrics (docs/metrics.md): requests by route pattern, method and status (counter), their
 * duration (histogram, seconds) and refusals by status (counter). Domain-free.
 *
 * The request path pays for one `Map` lookup (status → cell), one increment and one bucket search
 * per request, without allocating: counts and buckets live in plain numbers ({@link RouteMeter},
 * {@link CountedHistogram}) and are rendered only when scraped, and each route's label objects
 * are made once per status, never per request. The route label is the declared pattern
 * (`/v1/delivery-days/{day}/aggregate`), never the raw path, so the label set stays bounded.
 * @module
 */
import { CountedHistogram, type HistogramSeries } from "./counted_histogram.ts";
import { Counter, METRIC_PREFIX, type Registry } from "./registry.ts";

/** Statuses counted as refusals: the gates of the request path (credential, scope, body size, rate). */
export const REFUSAL_STATUSES: ReadonlySet<number> = new Set([401, 403, 413, 429]);

/** Upper bounds of the request-duration buckets, seconds (0.5 ms … 10 s). */
export const REQUEST_DURATION_BUCKETS = [
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

type RequestLabels = "route" | "method" | "status";

/** One status of one route: its labels and duration series (made once) and its count. */
interface Cell {
  labels: Record<RequestLabels, string>;
  n: number;
  durations: HistogramSeries;
}

/** The meter of one route and method: record a finished request with {@link RouteMeter.record}. */
export class RouteMeter {
  #route: string;
  #method: string;
  #http: HttpMetrics;
  #cells = new Map<number, Cell>();

  constructor(http: HttpMetrics, route: string, method: string) {
    this.#http = http;
    this.#route = route;
    this.#method = method;
  }

  /**
   * Counts one finished request.
   * @param status the answer's status code
   * @param seconds time from the request's arrival at the route to its answer, seconds
   */
  record(status: number, seconds: number): void {
    let cell = this.#cells.get(status);
    if (!cell) {
      const labels = { route: this.#route, method: this.#method, status: String(status) };
      cell = { labels, n: 0, durations: this.#http.duration.series(labels) };
      this.#cells.set(status, cell);
    }
    cell.n++;
    cell.durations.observe(seconds);
    if (REFUSAL_STATUSES.has(status)) this.#http.refused(status);
  }

  /** Every status seen so far with its count. */
  cells(): Iterable<Cell> {
    return this.#cells.values();
  }
}

/** The HTTP metrics of one registry. */
export class HttpMetrics {
  /** `fahrplan_http_request_duration_seconds{route,method,status}`. */
  readonly duration: CountedHistogram;
  #meters: RouteMeter[] = [];
  #refusals = new Map<number, { status: string; n: number }>();

  constructor(registry: Registry) {
    const meters = this.#meters;
    const refusals = this.#refusals;
    new Counter<RequestLabels>({
      name: `${METRIC_PREFIX}http_requests_total`,
      help: "HTTP requests answered, by route pattern, method (HEAD counts as GET) and status.",
      labelNames: ["route", "method", "status"],
      registers: [registry],
      collect() {
        this.reset();
        for (const m of meters) for (const c of m.cells()) this.inc(c.labels, c.n);
      },
    });
    new Counter<"status">({
      name: `${METRIC_PREFIX}http_refusals_total`,
      help: "Requests refused by the request path (401, 403, 413, 429), by status.",
      labelNames: ["status"],
      registers: [registry],
      collect() {
        this.reset();
        for (const c of refusals.values()) this.inc({ status: c.status }, c.n);
      },
    });
    this.duration = new CountedHistogram(registry, {
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: "Time from a request's arrival at its route to its answer (headers), seconds.",
      buckets: REQUEST_DURATION_BUCKETS,
    });
  }

  /**
   * The meter of one declared route; call once per route when it is registered.
   * @param route the declared path pattern, e.g. `/v1/delivery-days/{day}`
   * @param method upper-case method, e.g. `GET`
   */
  route(route: string, method: string): RouteMeter {
    const m = new RouteMeter(this, route, method);
    this.#meters.push(m);
    return m;
  }

  /** Counts one refusal (called by {@link RouteMeter.record}). */
  refused(status: number): void {
    let c = this.#refusals.get(status);
    if (!c) {
      this.#refusals.set(status, c = { status: String(status), n: 0 });
    }
    c.n++;
  }
}
