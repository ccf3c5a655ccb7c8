/**
 * Island: the operations log, history on load and live after that (docs/architecture.md, "Event log and live stream"), with
 * filters by kind and level. The list follows new events while it is scrolled to the bottom;
 * scrolling up (or selecting text in it) pauses that, and a button shows how many events
 * arrived meanwhile and jumps back.
 * @module
 */
import { useComputed, useSignal } from "@preact/signals";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { EventRow } from "../components/EventRow.tsx";
import { connectionLostText } from "../lib/console/connection.ts";
import { api, apiKey, feed } from "../lib/console/session.ts";
import type { EventRecord, EventsPage, Level } from "../lib/console/types.ts";

const LEVELS: Level[] = ["info", "warning", "error"];
const CONNECTION: Record<string, string> = {
  idle: "not connected",
  loading: "loading history…",
  connecting: "connecting…",
  live: "live",
  reconnecting: "reconnecting…",
  refused: "refused",
};

/** Props: the event kinds the service knows (the filter also offers any kind seen). */
export interface EventStreamProps {
  kinds: string[];
}

/** The event stream. */
export function EventStream({ kinds }: EventStreamProps) {
  const kind = useSignal("");
  const levels = useSignal<ReadonlySet<Level>>(new Set(LEVELS));
  const following = useSignal(true);
  const unseen = useSignal(0);
  const list = useRef<HTMLDivElement>(null);

  /** History of the current filter, asked of the server (older than what the feed loaded). */
  const filtered = useSignal<EventRecord[]>([]);
  const matches = (e: EventRecord) =>
    (kind.value === "" || e.kind === kind.value) && levels.value.has(e.level);
  const shown = useComputed(() => {
    const live = feed.events.value.filter(matches);
    const byId = new Map<number, EventRecord>();
    // The server's page was asked for an earlier filter until the new one arrives: filter again.
    for (const e of [...filtered.value.filter(matches), ...live]) byId.set(e.id, e);
    return [...byId.values()].sort((a, b) => a.id - b.id);
  });

  // A filter asks the server for the newest matching history page (the feed holds only the
  // newest events of every kind, so a rare kind would otherwise show nothing older).
  useEffect(() => {
    filtered.value = [];
    const all = kind.value === "" && levels.value.size === LEVELS.length;
    if (all || !apiKey.value || levels.value.size === 0) return;
    const q = new URLSearchParams({ limit: "200" });
    if (kind.value) q.append("kind", kind.value);
    if (levels.value.size < LEVELS.length) { for (const l of levels.value) q.append("level", l); }
    let current = true;
    api<EventsPage>("GET", `/v1/console/events?${q}`)
      .then((page) => {
        if (current) filtered.value = page.events;
      })
      .catch(() => {/* the feed's own state tells of refusals */});
    return () => {
      current = false;
    };
  }, [kind.value, levels.value, apiKey.value]);
  const kindOptions = useComputed(() =>
    [...new Set([...kinds, ...feed.events.value.map((e) => e.kind)])].sort()
  );

  useEffect(() =>
    feed.subscribe((batch) => {
      if (!following.peek()) unseen.value += batch.filter(matches).length;
    }), []);

  const rows = shown.value;
  const lastId = rows.length ? rows[rows.length - 1].id : 0;
  useLayoutEffect(() => {
    const el = list.current;
    if (el && following.peek()) el.scrollTop = el.scrollHeight;
  }, [lastId, rows.length, kind.value, levels.value]);

  const onScroll = () => {
    const el = list.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
    const selecting = !!globalThis.getSelection?.()?.toString() &&
      el.contains(globalThis.getSelection()?.anchorNode ?? null);
    following.value = atBottom && !selecting;
    if (atBottom) unseen.value = 0;
  };
  const jump = () => {
    following.value = true;
    unseen.value = 0;
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  };
  const toggleLevel = (l: Level) => {
    const next = new Set(levels.value);
    if (next.has(l)) next.delete(l);
    else next.add(l);
    levels.value = next;
  };

  const state = feed.state.value;
  const key = apiKey.value;
  return (
    <div class="stream">
      <div class="toolbar" role="toolbar" aria-label="Event filters">
        <span class={`conn conn-${state}`} role="status" title={feed.problem.value ?? ""}>
          <span class="dot" aria-hidden="true" />
          {state === "reconnecting" && feed.lostSince.value !== null
            ? connectionLostText(feed.lostSince.value)
            : CONNECTION[state] ?? state}
        </span>
        <label>
          Kind{" "}
          <select value={kind.value} onChange={(e) => kind.value = e.currentTarget.value}>
            <option value="">all kinds</option>
            {kindOptions.value.map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
        </label>
        <span class="levels" role="group" aria-label="Levels">
          {LEVELS.map((l) => (
            <label key={l} class={`lvl-toggle lvl-${l}`}>
              <input
                type="checkbox"
                checked={levels.value.has(l)}
                onChange={() => toggleLevel(l)}
              />
              {l}
            </label>
          ))}
        </span>
        <span class="muted count">
          {rows.length} shown{filtered.value.length ? " (history filtered on the server)" : ""}
        </span>
        {!following.value && (
          <button type="button" class="btn btn-small btn-primary" onClick={jump}>
            {unseen.value ? `↓ ${unseen.value} new · follow` : "↓ follow new events"}
          </button>
        )}
      </div>
      {state !== "refused" && (
        <div
          class="events"
          ref={list}
          onScroll={onScroll}
          tabIndex={0}
          role="log"
          aria-label="Events, oldest first"
        >
          <ol>
            {rows.map((e) => <EventRow key={e.id} event={e} />)}
          </ol>
        </div>
      )}
      {!key && <p class="placeholder">Enter the process key to load the event history.</p>}
      {key && state === "refused" && (
        <p class="placeholder">The event history is refused: see the message at the top.</p>
      )}
      {key && state !== "loading" && state !== "refused" && rows.length === 0 && (
        <p class="placeholder">
          {feed.events.value.length ? "No events match the filter." : "No events yet."}
        </p>
      )}
    </div>
  );
}
