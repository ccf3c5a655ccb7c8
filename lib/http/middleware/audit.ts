/**
 * Security events (SPEC §6): `api_call` for a successful POST/PUT/PATCH/DELETE, `access_denied`
 * for every 401/403/429. Not logged: reads, `/health`, `/console…`, and the stream-token
 * exchange's success. The event is durable before the response leaves.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { EventLog } from "../../store/events.ts";
import type { AppEnv } from "../env.ts";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const DENIED = new Set([401, 403, 429]);
const UNLOGGED_CALLS = new Set(["/v1/console/stream-token"]);

/** Middleware factory writing to `events`. */
export function audit(events: EventLog): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const path = c.req.path;
    if (path === "/health" || path.startsWith("/console") || path.startsWith("/static/")) return;
    const status = c.res.status;
    if (DENIED.has(status)) {
      await events.append({
        kind: "access_denied",
        level: "warning",
        message: `${c.req.method} ${path} refused with ${status}`,
        path,
        status,
        caller: c.get("principal")?.caller,
        credential_type: c.get("principal")?.credential_type,
      });
      return;
    }
    const p = c.get("principal");
    if (
      status >= 200 && status < 300 && MUTATING.has(c.req.method) && p &&
      !UNLOGGED_CALLS.has(path)
    ) {
      await events.append({
        kind: "api_call",
        message: `${p.caller} called ${c.req.method} ${path} (${status})`,
        caller: p.caller,
        credential_type: p.credential_type,
        path,
        status,
      });
    }
  };
}
