/**
 * Event history and live stream (docs/architecture.md, "Event log and live stream").
 *
 * - `GET /v1/console/events?limit=&after_id=` (process): without `after_id` the newest `limit`
 *   events, oldest first; with it the next `limit` events after that id. `limit` 1..1000,
 *   default 100. Body `{events, next_after_id}`; `next_after_id` is the last returned id (or
 *   the given `after_id`, or 0, when the page is empty) — pass it back to page forward.
 * - `GET /v1/console/events/stream?token=` (stream token only): Server-Sent Events, `id:` = event
 *   id, `event: <kind>`, `data:` = the JSON record, `retry: 3000`, a `: heartbeat` comment every
 *   15 s. Resumes after `Last-Event-ID` or `after_id`; without either it starts at the head.
 * @module
 */
import { answer } from "../../../lib/http/respond.ts";
import { z } from "zod";
import { EVENT_KINDS, EventLevel, EventsPageSchema } from "../../../lib/wire/events.ts";
import type { RouteContext } from "../../../lib/http/route_context.ts";
import { ValidationFailed } from "../../../lib/http/errors.ts";
import { SSE_END, SSE_HEARTBEAT, SSE_RETRY } from "../../../lib/http/sse.ts";
import { parseOr422, zodIssuesToItems } from "../../../lib/http/validation.ts";
import type { EventHub } from "../../../lib/store/event_hub.ts";

/**
 * A whole-number query parameter: one 422 item per bad value (`type_error` when it is not a
 * plain decimal integer — no sign, exponent, hex or blank —, `value_error.too_small` /
 * `value_error.too_big` with the bound in `ctx` when out of range).
 */
export function wholeNumber(min: number, max: number, def?: number, description?: string) {
  const range = `between ${min} and ${max}`;
  return z.string().optional().transform((v, ctx): number => {
    if (v === undefined) return def as number;
    if (!/^-?\d+$/.test(v)) {
      ctx.addIssue({
        code: "custom",
        message: `must be a whole number ${range}`,
        params: { type: "type_error", ctx: { expected: "integer" } },
      });
      return z.NEVER;
    }
    const n = Number(v);
    if (n < min || n > max) {
      ctx.addIssue({
        code: "custom",
        message: `must be ${range}`,
        params: n < min
          ? { type: "value_error.too_small", ctx: { minimum: min } }
          : { type: "value_error.too_big", ctx: { maximum: max } },
      });
      return z.NEVER;
    }
    return n;
  }).meta({
    type: "integer",
    minimum: min,
    maximum: max,
    ...(description ? { description } : {}),
  });
}

const afterId = () =>
  wholeNumber(
    0,
    Number.MAX_SAFE_INTEGER,
    undefined,
    "last event id the reader already has; the answer starts after it",
  ).optional();

/** Query of the history endpoint; `kind` and `level` may be repeated (any of them matches). */
export const EventsQuery = z.strictObject({
  limit: wholeNumber(1, 1000, 100, "page size, 1..1000, default 100"),
  after_id: afterId(),
  kind: z.array(z.enum(EVENT_KINDS)).optional().meta({
    description: "only these kinds (repeat the parameter for several)",
  }),
  level: z.array(EventLevel).optional().meta({
    description: "only these levels (repeat for several, e.g. level=warning&level=error)",
  }),
  delivery_day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a date YYYY-MM-DD").optional()
    .meta({ description: "only events about this delivery day (Europe/Berlin)" }),
  caller: z.string().min(1).max(128).optional().meta({
    description: "only events of this caller (API-key name, token client, or orchestrator)",
  }),
});

/** The query as Hono gives it: repeatable parameters as lists, the others as their first value. */
function historyQuery(q: Record<string, string>, all: Record<string, string[]>) {
  const out: Record<string, unknown> = { ...q };
  for (const name of ["kind", "level"]) if (all[name]) out[name] = all[name];
  return out;
}

const afterIdHeader = wholeNumber(0, Number.MAX_SAFE_INTEGER);

/** Query of the stream (besides the stream token, documented by its security scheme). */
export const StreamQuery = z.object({ after_id: afterId() });

/** Bytes a stream may hold for a client that does not read before it is dropped. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/**
 * Registers history and stream.
 * @param hub the process's event hub, built with `encodeSseEvents` (`lib/http/sse.ts`): the
 *   bytes it hands each reader are Server-Sent Events messages
 */
export function registerEvents(ctx: RouteContext, hub: EventHub): void {
  ctx.routes.add({
    method: "get",
    path: "/v1/console/events",
    access: "process",
    summary: "Event history (newest page, or the page after after_id)",
    tags: ["console"],
    query: EventsQuery,
    responses: { 200: { description: "a page of events, oldest first", schema: EventsPageSchema } },
  }, async (c) => {
    const q = parseOr422(EventsQuery, historyQuery(c.req.query(), c.req.queries()), "query");
    const kinds = q.kind && new Set<string>(q.kind);
    const levels = q.level && new Set<string>(q.level);
    const filtered = kinds || levels || q.delivery_day || q.caller;
    const events = await ctx.events.list({
      limit: q.limit,
      afterId: q.after_id,
      filter: filtered
        ? (e) =>
          (!kinds || kinds.has(e.kind)) && (!levels || levels.has(e.level)) &&
          (!q.delivery_day || e.delivery_day === q.delivery_day) &&
          (!q.caller || e.caller === q.caller)
        : undefined,
    });
    // With a filter, the next page starts after what this one read, matching or not.
    const next = Math.max(
      events.length ? events[events.length - 1].id : 0,
      events.scannedTo ?? q.after_id ?? 0,
    );
    return answer({ events, next_after_id: next });
  });

  ctx.routes.add({
    method: "get",
    path: "/v1/console/events/stream",
    access: "stream",
    summary: "Live event stream (Server-Sent Events); stream token in the query only",
    tags: ["console"],
    query: StreamQuery,
    requestHeaders: {
      "Last-Event-ID": {
        description:
          "the last event id the client has (EventSource sends it on reconnect): the stream resumes after it; wins over after_id; not a whole number 0… → 422",
        schema: { type: "string", pattern: "^\\s*[0-9]*\\s*$" },
      },
    },
    responses: {
      200: {
        description: "Server-Sent Events: `retry: 3000`, then `id:` = event id, `event:` = kind, " +
          "`data:` = the JSON event record, a `: heartbeat` comment every 15 s, and " +
          "`event: stream_end` (no id) as the last message when the service stops",
        contentType: "text/event-stream",
        schema: z.string(),
      },
    },
  }, async (c) => {
    // The stream token was checked by the stream guard (lib/http/middleware/stream_auth.ts).
    // Last-Event-ID (sent by EventSource on reconnect) wins over the after_id of the URL.
    const lastEventId = c.req.header("last-event-id");
    let afterId: number;
    if (lastEventId !== undefined && lastEventId.trim() !== "") {
      const r = afterIdHeader.safeParse(lastEventId.trim());
      if (!r.success) {
        throw new ValidationFailed(
          zodIssuesToItems("header", r.error.issues, lastEventId)
            .map((i) => ({ ...i, loc: ["header", "last-event-id"] })),
        );
      }
      afterId = r.data;
    } else {
      const q = parseOr422(StreamQuery, c.req.query(), "query");
      afterId = q.after_id ?? await ctx.events.head();
    }
    let sub: { close(): void } | undefined;
    /** The client left, or the stream was ended: the subscription must go (now or once made). */
    let gone = false;
    const leave = () => {
      gone = true;
      sub?.close();
    };
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        // The hub hands every reader the same bytes (SSE messages encoded once per batch).
        const send = (bytes: Uint8Array) => {
          if (gone) return;
          try {
            controller.enqueue(bytes);
          } catch {
            leave();
            return;
          }
          // A client that stopped reading: drop the connection instead of buffering without
          // bound; EventSource reconnects with Last-Event-ID and resumes from the log.
          if ((controller.desiredSize ?? 0) < -MAX_QUEUED_BYTES) {
            leave();
            controller.error(new Error("event stream reader too slow"));
          }
        };
        send(SSE_RETRY);
        const subscription = await hub.subscribe(afterId, {
          onEvents: (_records, encoded) => send(encoded),
          onUpdate: (_record, encoded) => send(encoded),
          onHeartbeat: () => send(SSE_HEARTBEAT),
          onError() {
            leave();
            try {
              controller.close();
            } catch { /* already closed */ }
          },
          // The service stops: a last message, then a clean close (the client reconnects).
          onEnd() {
            send(SSE_END);
            leave();
            try {
              controller.close();
            } catch { /* already closed */ }
          },
        });
        // The client may have gone while we subscribed: release at once.
        if (gone) subscription.close();
        else sub = subscription;
      },
      cancel: leave,
    }, new ByteLengthQueuingStrategy({ highWaterMark: 0 }));
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
      },
    });
  });
}
