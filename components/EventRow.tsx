/**
 * One event of the operations log. Every field may carry untrusted text (request paths, caller
 * names, foreign error bodies; docs/architecture.md, "Console"): all of it is rendered as text nodes, never markup.
 * @module
 */
import type { EventRecord } from "../lib/console/types.ts";
import { LocalTime } from "./LocalTime.tsx";

/** Props of {@link EventRow}. */
export interface EventRowProps {
  event: EventRecord;
  /** Time zone (default: the browser's); for tests. */
  timeZone?: string;
}

/** A list item: time, level, kind, message, and a line with caller, client, path and status. */
export function EventRow({ event: e, timeZone }: EventRowProps) {
  const meta: string[] = [];
  if (e.caller) meta.push(`caller ${e.caller}`);
  if (e.credential_type) meta.push(e.credential_type);
  if (e.client) meta.push(`from ${e.client}`);
  if (e.path) meta.push(e.path);
  if (e.status !== undefined) meta.push(String(e.status));
  if (e.delivery_day) meta.push(`day ${e.delivery_day}`);
  return (
    <li class={`ev lvl-${e.level}`} data-id={String(e.id)} data-kind={e.kind}>
      <LocalTime iso={e.ts} timeZone={timeZone} />
      <span class="ev-level">{e.level}</span>
      <span class="ev-kind" title={e.kind}>
        {/* Breaks after an underscore, never inside a word: no kind is cut. */}
        {e.kind.split("_").flatMap((part, i, all) =>
          i < all.length - 1 ? [`${part}_`, <wbr key={i} />] : [part]
        )}
      </span>
      <span class="ev-body">
        <span class="ev-msg">{e.message}</span>
        {meta.length > 0 && <span class="ev-meta">{meta.join(" · ")}</span>}
      </span>
    </li>
  );
}
