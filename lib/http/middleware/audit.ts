/**
 * Security events (SPEC §6): `api_call` for a successful POST/PUT/PATCH/DELETE, `access_denied`
 * for every 401/403/429. Not logged: reads, `/health`, `/console…`, `/static/…` (the app does not
 * audit those routes at all), and the stream-token exchange's success. The event is durable
 * before the response leaves.
 * @module
 */
import type { Context } from "hono";
import type { EventLog } from "../../store/events.ts";
import type { AppEnv } from "../env.ts";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const DENIED = new Set([401, 403, 429]);
const UNLOGGED_CALLS = new Set(["/v1/console/stream-token"]);

/**
 * Audit step factory writing to `events`: called with each finished response of an audited
 * route; returns a promise only when it writes an event (the caller waits for it).
 */
export function audit(
  events: EventLog,
): (c: Context<AppEnv>, res: Response) => Promise<void> | undefined {
  return (c, res) => {
    const status = res.status;
    if (DENIED.has(status)) {
      const path = c.req.path;
      const p = c.get("principal");
      return events.append({
        kind: "access_denied",
        level: "warning",
        message: `${c.req.method} ${path} refused with ${status}`,
        path,
        status,
        caller: p?.caller,
        credential_type: p?.credential_type,
      }).then(() => {});
    }
    if (status < 200 || status >= 300) return undefined;
    const p = c.get("principal");
    if (!p || !MUTATING.has(c.req.method)) return undefined;
    const path = c.req.path;
    if (UNLOGGED_CALLS.has(path)) return undefined;
    return events.append({
      kind: "api_call",
      message: `${p.caller} called ${c.req.method} ${path} (${status})`,
      caller: p.caller,
      credential_type: p.credential_type,
      path,
      status,
    }).then(() => {});
  };
}
