/**
 * Security events (docs/access-control.md, "Audit events"): `api_call` for a successful
 * POST/PUT/PATCH/DELETE, `access_denied` for a 401/403/429, both with the `client` address
 * (docs/access-control.md, "Client address"). Refusals are stored at most 10 a minute per
 * recognised caller (its 403 and 429, wherever it comes from) and per client address (the rest),
 * then one summary a minute with the count and the paths refused most ({@link DenialThrottle}).
 * Not logged: reads, `/health`, `/console…`, `/static/…` (the app does not audit those routes at
 * all), and the stream-token exchange's success. The event is durable before the response
 * leaves. A path is quoted cut to {@link MAX_EVENT_PATH} characters.
 * @module
 */
import type { Context } from "hono";
import { type EventLog, MAX_EVENT_PATH, type NewEvent } from "../../store/events.ts";
import type { DenialSummary, DenialThrottle } from "../denial_throttle.ts";
import type { AppEnv } from "../env.ts";
import { clientAddress } from "./authenticate.ts";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const DENIED = new Set([401, 403, 429]);
const UNLOGGED_CALLS = new Set(["/v1/console/stream-token"]);

/** The `access_denied` event of a summary of refusals counted but not stored. */
export function denialSummaryEvent(s: DenialSummary): NewEvent {
  return {
    kind: "access_denied",
    level: "warning",
    message: s.message,
    ...(s.by === "caller" ? { caller: s.source } : {}),
    data: {
      suppressed: s.suppressed,
      [s.by]: s.source,
      since: new Date(s.since).toISOString(),
      paths: s.paths,
    },
  };
}

/** `path` cut to {@link MAX_EVENT_PATH} characters (the last one `…`). */
const cut = (path: string) =>
  path.length <= MAX_EVENT_PATH ? path : path.slice(0, MAX_EVENT_PATH - 1) + "…";

/**
 * Audit step factory writing to `events`: called with each finished response of an audited
 * route; returns a promise only when it writes an event (the caller waits for it).
 * @param throttle decides which refusals are stored one by one
 */
export function audit(
  events: EventLog,
  throttle: DenialThrottle,
): (c: Context<AppEnv>, res: Response) => Promise<void> | undefined {
  return (c, res) => {
    const status = res.status;
    if (DENIED.has(status)) {
      const p = c.get("principal");
      const client = clientAddress(c.env);
      // A recognised caller counts against itself only; the anonymous one (unauthenticated
      // mode) is no caller to tell apart, so it counts against its address.
      const caller = p && p.credential_type !== "none" ? p.caller : undefined;
      const decision = throttle.take({ address: client, caller, path: c.req.path });
      const writes = decision.summaries.map(denialSummaryEvent);
      if (decision.store) {
        const path = cut(c.req.path);
        writes.push({
          kind: "access_denied",
          level: "warning",
          message: `${c.req.method} ${path} refused with ${status}`,
          path,
          status,
          caller: p?.caller,
          credential_type: p?.credential_type,
          client,
        });
      }
      if (!writes.length) return undefined;
      return Promise.all(writes.map((e) => events.append(e))).then(() => {});
    }
    if (status < 200 || status >= 300) return undefined;
    const p = c.get("principal");
    if (!p || !MUTATING.has(c.req.method)) return undefined;
    const path = cut(c.req.path);
    if (UNLOGGED_CALLS.has(c.req.path)) return undefined;
    return events.append({
      kind: "api_call",
      message: `${p.caller} called ${c.req.method} ${path} (${status})`,
      caller: p.caller,
      credential_type: p.credential_type,
      path,
      status,
      client: clientAddress(c.env),
    }).then(() => {});
  };
}
