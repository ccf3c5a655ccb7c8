/**
 * Event history and live stream (SPEC §2.4, §4 rules 2 and 4, §6; DESIGN §6).
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
import { z } from "zod";
import type { ServiceContext } from "../../../lib/context.ts";
import { problem } from "../../../lib/http/errors.ts";
import { parseOr422 } from "../../../lib/http/validation.ts";
import { isAsciiCredential } from "../../../lib/auth/principal.ts";
import type { EventHub } from "../../../lib/store/event_hub.ts";

const id = z.coerce.number({ error: "must be a whole number" }).int("must be a whole number")
  .min(0, "must be 0 or more").max(Number.MAX_SAFE_INTEGER);

/** Query of the history endpoint. */
export const EventsQuery = z.strictObject({
  limit: z.coerce.number({ error: "must be a whole number" }).int("must be a whole number")
    .min(1, "must be between 1 and 1000").max(1000, "must be between 1 and 1000").default(100),
  after_id: id.optional(),
});

/** One event record as served. */
export const EventRecordSchema = z.object({
  id: z.number().int(),
  ts: z.string(),
  kind: z.string(),
  level: z.enum(["info", "warning", "error"]),
  message: z.string(),
  caller: z.string().optional(),
  credential_type: z.enum(["api_key", "bearer", "none"]).optional(),
  path: z.string().optional(),
  status: z.number().int().optional(),
  delivery_day: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

/** Body of the history endpoint. */
export const EventsPage = z.object({
  events: z.array(EventRecordSchema),
  next_after_id: z.number().int(),
});

const encoder = new TextEncoder();

/** Registers history and stream. */
export function registerEvents(ctx: ServiceContext, hub: EventHub): void {
  ctx.routes.add({
    method: "get",
    path: "/v1/console/events",
    access: "process",
    summary: "Event history (newest page, or the page after after_id)",
    tags: ["console"],
    query: EventsQuery,
    responses: { 200: { description: "a page of events, oldest first", schema: EventsPage } },
  }, async (c) => {
    const q = parseOr422(EventsQuery, c.req.query(), "query");
    const events = await ctx.events.list({ limit: q.limit, afterId: q.after_id });
    const next = events.length ? events[events.length - 1].id : q.after_id ?? 0;
    return c.json({ events, next_after_id: next });
  });

  ctx.routes.add({
    method: "get",
    path: "/v1/console/events/stream",
    access: "stream",
    summary: "Live event stream (Server-Sent Events); stream token in the query only",
    tags: ["console"],
    query: z.object({ after_id: id.optional() }),
    responses: {
      200: { description: "text/event-stream", contentType: "text/event-stream" },
    },
  }, async (c) => {
    const token = c.req.query("token") ?? "";
    const verdict = token && isAsciiCredential(token) ? ctx.streamTokens.verify(token) : "invalid";
    if (verdict !== "ok") {
      return problem(
        401,
        verdict === "expired"
          ? "The stream token has expired; get a new one from POST /v1/console/stream-token."
          : "A valid stream token is required in the token query parameter (API keys and bearer tokens are not accepted here).",
      );
    }
    const resume = c.req.header("last-event-id") ?? c.req.query("after_id");
    let afterId: number;
    if (resume !== undefined && resume !== "") {
      afterId = parseOr422(id, resume, "query");
    } else {
      afterId = await ctx.events.head();
    }
    let sub: { close(): void } | undefined;
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        const send = (text: string) => {
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            sub?.close();
          }
        };
        send("retry: 3000\n\n");
        const subscription = await hub.subscribe(afterId, {
          onEvents(records) {
            let chunk = "";
            for (const r of records) {
              chunk += `id: ${r.id}\nevent: ${r.kind}\ndata: ${JSON.stringify(r)}\n\n`;
            }
            send(chunk);
          },
          onHeartbeat: () => send(": heartbeat\n\n"),
          onError() {
            sub?.close();
            try {
              controller.close();
            } catch { /* already closed */ }
          },
        });
        // The client may have gone while we subscribed: release at once.
        if (cancelled) subscription.close();
        else sub = subscription;
      },
      cancel() {
        cancelled = true;
        sub?.close();
      },
    });
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
      },
    });
  });
}
