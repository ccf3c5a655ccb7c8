/**
 * The request path's timing hook (docs/metrics.md, "HTTP"): per route, chosen once when the route
 * is registered, a function the request path calls with the answer's status and the instant the
 * request reached the route. It feeds the route's {@link RouteMeter} (one `Map` lookup, one
 * increment, one histogram observation), so metrics cost no allocation of their own per request.
 * @module
 */
import type { HttpMetrics, RouteMeter } from "../metrics/http_metrics.ts";
import type { RouteSpec } from "./route_table.ts";

/** Records one finished request of a route: its status and its start (`performance.now()`, ms). */
export type RecordRequest = (status: number, startMs: number) => void;

/** Builds a route's {@link RecordRequest} from its declaration. */
export type RouteTiming = (spec: RouteSpec) => RecordRequest;

/** The timing hook feeding `metrics`: route label = the declared pattern, method = upper case. */
export function routeTiming(metrics: HttpMetrics): RouteTiming {
  return (spec) => {
    const meter: RouteMeter = metrics.route(spec.path, spec.method.toUpperCase());
    return (status, startMs) => meter.record(status, (performance.now() - startMs) / 1000);
  };
}
