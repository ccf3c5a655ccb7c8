/**
 * The request path of one route (docs/architecture.md, "Request path"), built once when the
 * route is registered: declared body length → (scoped routes) authentication → rate limit →
 * scope guard, or (the stream route) the stream-token guard → counted body → handler → audit →
 * redaction of the answer → response headers ({@link finishApi} or, for `/console` and
 * `/static/...`, {@link finishPage}). No body byte is read before the credential and the scope
 * are checked. With a timing hook (metrics, `route_timing.ts`) every answer is counted with its
 * route pattern, status and duration once the audit is done. An error thrown anywhere becomes its response through `onError` and is audited
 * like any other answer.
 *
 * Each route is registered on Hono as this one handler, and every step runs synchronously unless
 * it has I/O to wait for, so an authenticated read that needs no KV answers without a promise.
 * @module
 */
import type { Context } from "hono";
import type { Scope } from "../auth/types.ts";
import type { AppEnv, Gate } from "./env.ts";
import { finishApi, finishPage } from "./respond.ts";
import type { Handler, RouteSpec, RouteWrapper } from "./route_table.ts";
import type { RouteTiming } from "./route_timing.ts";

/** What the request path is made of. */
export interface RequestPathOptions {
  /** Runs first on every route (the declared body length). */
  first: Gate[];
  /** The gates of a route by its access: a scope, or `stream`. */
  guard(access: Scope | "stream"): Gate[];
  /** Runs after the guard, before the handler (the counted body). */
  body: Gate[];
  /**
   * The answer of an API route as it may leave: every configured secret masked
   * (docs/access-control.md, "Secrets"); a promise only when the body must be read first.
   */
  redact(res: Response): Response | Promise<Response>;
  /** Records the finished response of an audited route; a promise when it writes. */
  audit(c: Context<AppEnv>, res: Response): Promise<void> | undefined;
  /** The response for an error thrown by a gate or a handler. */
  onError(err: unknown, c: Context<AppEnv>): Response;
  /** Times every answered request of a route (metrics); absent: nothing is timed. */
  timing?: RouteTiming;
}

/** True for the console page and its files: browser headers, never audited (docs/access-control.md, "Audit events"). */
export function isPagePath(path: string): boolean {
  return path === "/console" || path.startsWith("/console/") || path.startsWith("/static/");
}

/** Builds the {@link RouteWrapper} of the app. */
export function requestPath(opts: RequestPathOptions): RouteWrapper {
  return (spec: RouteSpec, handler: Handler): Handler => {
    const page = isPagePath(spec.path);
    const audited = !page && spec.path !== "/health";
    const finish = page
      ? finishPage
      : (_c: Context<AppEnv>, res: Response): Response | Promise<Response> => {
        const masked = opts.redact(res);
        return masked instanceof Promise ? masked.then(finishApi) : finishApi(masked);
      };
    const gates: Gate[] = [
      ...opts.first,
      ...(spec.access === "open" ? [] : opts.guard(spec.access)),
      ...opts.body,
    ];

    const time = opts.timing?.(spec);

    // `t0`: when the request reached the route (`performance.now()`), for the timing hook.
    const done = (c: Context<AppEnv>, res: Response, t0: number): Response | Promise<Response> => {
      if (audited) {
        const writing = opts.audit(c, res);
        if (writing) {
          return writing.then(() => {
            time?.(res.status, t0);
            return finish(c, res);
          });
        }
      }
      time?.(res.status, t0);
      return finish(c, res);
    };
    const failed = (c: Context<AppEnv>, err: unknown, t0: number) =>
      done(c, opts.onError(err, c), t0);

    const run = (c: Context<AppEnv>, from: number, t0: number): Response | Promise<Response> => {
      try {
        for (let i = from; i < gates.length; i++) {
          const r = gates[i](c);
          if (r instanceof Promise) {
            return r.then(
              (stop) => stop ? done(c, stop, t0) : run(c, i + 1, t0),
              (err) => failed(c, err, t0),
            );
          }
          if (r) return done(c, r, t0);
        }
        const res = handler(c);
        return res instanceof Promise
          ? res.then((r) => done(c, r, t0), (err) => failed(c, err, t0))
          : done(c, res, t0);
      } catch (err) {
        return failed(c, err, t0);
      }
    };
    return time ? (c) => run(c, 0, performance.now()) : (c) => run(c, 0, 0);
  };
}
