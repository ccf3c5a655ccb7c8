/**
 * The wire format of the live event stream (docs/architecture.md, "Event log and live stream"):
 * Server-Sent Events as the WHATWG HTML standard defines them
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
 * The stream opens with {@link SSE_RETRY}; each event record is one message of `id:` (event id),
 * `event:` (kind) and `data:` (the JSON record); {@link SSE_HEARTBEAT} is a comment line that
 * keeps proxies from closing an idle stream; {@link SSE_END} is the last message when the service
 * stops.
 *
 * The event hub (`lib/store/event_hub.ts`) knows none of this: the route hands it
 * {@link encodeSseEvents}, which it calls once per batch for all readers.
 * @module
 */
import type { EventRecord } from "../store/events.ts";

const encoder = new TextEncoder();

/** First bytes of every stream: the client waits 3 s before it reconnects. */
export const SSE_RETRY: Uint8Array = encoder.encode("retry: 3000\n\n");

/** Kind of the last message of a stream the service ends because it stops (no `id:`). */
export const SSE_END_EVENT = "stream_end";

/**
 * The last message of every stream when the service stops (SIGTERM): `event: stream_end`, a
 * JSON `data:` with a sentence and no `id:`, so the client's resume point stays where it was.
 */
export const SSE_END: Uint8Array = encoder.encode(
  `event: ${SSE_END_EVENT}\ndata: ${
    JSON.stringify({ message: "The service is stopping; reconnect when it is back." })
  }\n\n`,
);

/** A comment the client ignores, sent every heartbeat period. */
export const SSE_HEARTBEAT: Uint8Array = encoder.encode(": heartbeat\n\n");

/**
 * The Server-Sent Events messages of `records`: per record `id:` = event id, `event:` = kind,
 * `data:` = the JSON record, then a blank line. JSON never contains a raw line break, so each
 * record is one `data:` line.
 */
export function sseEventsText(records: readonly EventRecord[]): string {
  let text = "";
  for (const r of records) text += `id: ${r.id}\nevent: ${r.kind}\ndata: ${JSON.stringify(r)}\n\n`;
  return text;
}

/** {@link sseEventsText} as UTF-8 bytes: the event hub's encoder for the stream route. */
export function encodeSseEvents(records: readonly EventRecord[]): Uint8Array {
  return encoder.encode(sseEventsText(records));
}

/**
 * A rewritten event (a repeated failure's count, `EventLog.update`) as one message
 * `event: event_updated` with the whole JSON record and no `id:` line, so a client's resume point
 * (`Last-Event-ID`, `after_id`) stays where it was; the client replaces the record it holds with
 * that id (docs/api.md, "Live event stream").
 */
export function encodeSseUpdate(record: EventRecord): Uint8Array {
  return encoder.encode(`event: event_updated\ndata: ${JSON.stringify(record)}\n\n`);
}
