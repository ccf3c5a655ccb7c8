/**
 * The live operations log as the console sees it (docs/architecture.md, "Event log and live stream"): the newest history page
 * first, then the live stream through the stream-token exchange (docs/access-control.md, "Stream tokens").
 *
 * Every (re)connection gets a fresh stream token and resumes with `after_id` = the last id this
 * feed holds, and records at or below that id are dropped, so a token expiry, a network drop or
 * a service restart leaves no gap and no duplicate. A stream that stays silent for longer than
 * three heartbeats counts as dead and is replaced. A `stream_end` message (the service stops)
 * ends the stream at once; {@link EventFeed.lostSince} says since when it is being retried.
 *
 * @example
 * const feed = new EventFeed({ request: (m, p) => apiRequest(key, m, p) });
 * feed.subscribe((batch) => console.log(batch.length, "new events"));
 * await feed.start();
 * @module
 */
import { batch, signal } from "@preact/signals";
import { realSleep, type Sleep } from "../clock.ts";
import { backoffMs } from "../retry.ts";
import { ApiError } from "./api.ts";
import { SseParser } from "./sse.ts";
import type { EventRecord, EventsPage } from "./types.ts";

/** Where a batch of events came from: the history page loaded at start, or the live stream. */
export type BatchSource = "history" | "live";

/** Where the feed is. `refused`: the key was refused (the session shows why); no retries. */
export type FeedState = "idle" | "loading" | "connecting" | "live" | "reconnecting" | "refused";

/** What the feed needs from its surroundings. */
export interface FeedDeps {
  /** An authenticated JSON request; throws {@link ApiError}. */
  request<T>(method: string, path: string): Promise<T>;
  /** Opens the stream (default: `fetch`). */
  fetchStream?: (url: string, signal: AbortSignal) => Promise<Response>;
  /** Events loaded as history (default 200, at most 1000). */
  historyLimit?: number;
  /** Events kept in memory (default 2000); the oldest are dropped. */
  maxKept?: number;
  /** Silence after which the stream is replaced (default 45 s; the heartbeat is 15 s). */
  idleTimeoutMs?: number;
  /** Delay of the first reconnect (default 250 ms); later ones back off from the server's `retry:`. */
  firstRetryMs?: number;
  /**
   * How a reconnect waits, in ms; {@link EventFeed.stop} aborts the signal (default: real time;
   * tests pass a `FakeClock`'s sleep).
   */
  sleep?: Sleep;
  /** The clock of {@link EventFeed.lostSince}, ms since the epoch (default `Date.now`). */
  now?: () => number;
}

const REFUSALS = new Set([401, 403, 503]);
/** Kind of the service's last message before it stops (`lib/http/sse.ts`). */
const STREAM_END = "stream_end";

/** The sentence of a `stream_end` message's data (`{message}`), or a default. */
function streamEndText(data: string): string {
  try {
    const m = (JSON.parse(data) as { message?: unknown }).message;
    if (typeof m === "string" && m) return m;
  } catch { /* fall through */ }
  return "The service ended the live stream.";
}

/** History plus live events, without gap or duplicate. */
export class EventFeed {
  /** Events held, oldest first. */
  readonly events = signal<EventRecord[]>([]);
  /** Connection state. */
  readonly state = signal<FeedState>("idle");
  /** Why the feed is not live, in words (null when fine). */
  readonly problem = signal<string | null>(null);
  /**
   * Since when (ms since the epoch) the stream is down and being retried; `null` while live,
   * before the first connection and after a stop or refusal.
   */
  readonly lostSince = signal<number | null>(null);
  /** Highest event id held (the resume point). */
  lastId = 0;
  /** Number of stream connections opened (for diagnostics and tests). */
  connections = 0;
  #deps: FeedDeps;
  #listeners = new Set<(records: EventRecord[], source: BatchSource) => void>();
  #run = 0;
  #abort: AbortController | undefined;
  /** Cancels the pending reconnect wait. */
  #wait: AbortController | undefined;
  #attempt = 0;
  #retryMs = 3000;

  constructor(deps: FeedDeps) {
    this.#deps = deps;
  }

  /**
   * Calls `fn` with every batch of new events and where it came from: `history` (the page loaded
   * at start: islands that load their own data at start need not reload for it) or `live`.
   * Returns the unsubscribe function.
   */
  subscribe(fn: (records: EventRecord[], source: BatchSource) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** (Re)starts: clears what is held and loads history (resolves then), then goes live. */
  async start(): Promise<void> {
    this.stop();
    const run = ++this.#run;
    batch(() => {
      this.events.value = [];
      this.state.value = "loading";
      this.problem.value = null;
    });
    this.lastId = 0;
    await this.#loadHistory(run);
  }

  /** Closes the stream and cancels pending reconnects. */
  stop(): void {
    this.#run++;
    this.#abort?.abort();
    this.#abort = undefined;
    this.#wait?.abort();
    this.#wait = undefined;
    this.#attempt = 0;
    batch(() => {
      this.state.value = "idle";
      this.lostSince.value = null;
    });
  }

  async #loadHistory(run: number): Promise<void> {
    const limit = Math.min(this.#deps.historyLimit ?? 200, 1000);
    let page: EventsPage;
    try {
      page = await this.#deps.request<EventsPage>("GET", `/v1/console/events?limit=${limit}`);
    } catch (err) {
      if (run === this.#run) this.#failed(err, run, () => this.#loadHistory(run));
      return;
    }
    if (run !== this.#run) return;
    this.#accept(page.events, "history");
    this.lastId = Math.max(this.lastId, page.next_after_id);
    void this.#connect(run); // runs for the life of the stream
  }

  async #connect(run: number): Promise<void> {
    this.state.value = this.#attempt ? "reconnecting" : "connecting";
    let token: string;
    try {
      token = (await this.#deps.request<{ token: string }>("POST", "/v1/console/stream-token"))
        .token;
    } catch (err) {
      if (run === this.#run) this.#failed(err, run, () => this.#connect(run));
      return;
    }
    if (run !== this.#run) return;
    const ac = new AbortController();
    this.#abort = ac;
    const url = `/v1/console/events/stream?token=${
      encodeURIComponent(token)
    }&after_id=${this.lastId}`;
    const open = this.#deps.fetchStream ??
      ((u: string, signal: AbortSignal) => fetch(u, { signal, cache: "no-store" }));
    let res: Response;
    try {
      this.connections++;
      res = await open(url, ac.signal);
    } catch {
      if (run === this.#run) this.#retry(run, "The live stream could not be opened.");
      return;
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel().catch(() => {});
      // 401: the token expired between issue and use; the next attempt gets a new one.
      if (run === this.#run) this.#retry(run, `The live stream was refused (${res.status}).`);
      return;
    }
    batch(() => {
      this.state.value = "live";
      this.problem.value = null;
      this.lostSince.value = null;
    });
    this.#attempt = 0;
    const end = await this.#read(res.body, ac, run);
    if (run === this.#run) this.#retry(run, end ?? "The live stream ended; reconnecting.");
  }

  /** Reads until the stream ends; returns the sentence of a `stream_end` message, if one came. */
  async #read(
    body: ReadableStream<Uint8Array>,
    ac: AbortController,
    run: number,
  ): Promise<string | undefined> {
    let end: string | undefined;
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    const idle = this.#deps.idleTimeoutMs ?? 45_000;
    let watchdog = setTimeout(() => ac.abort(), idle);
    // Stopping aborts `ac`; a body that does not end on its own then still lets go of the reader.
    const letGo = () => reader.cancel().catch(() => {});
    ac.signal.addEventListener("abort", letGo, { once: true });
    try {
      while (run === this.#run) {
        const { value, done } = await reader.read();
        if (done) break;
        clearTimeout(watchdog);
        watchdog = setTimeout(() => ac.abort(), idle);
        const fresh: EventRecord[] = [];
        const updated: EventRecord[] = [];
        for (const m of parser.push(decoder.decode(value, { stream: true }))) {
          if (m.retry !== undefined) this.#retryMs = m.retry;
          if (!m.data) continue;
          if (m.event === STREAM_END) {
            end = streamEndText(m.data);
            continue;
          }
          try {
            (m.event === "event_updated" ? updated : fresh).push(JSON.parse(m.data) as EventRecord);
          } catch { /* not a record; ignore */ }
        }
        if (fresh.length) this.#accept(fresh, "live");
        if (updated.length) this.#replace(updated);
      }
    } catch {
      /* aborted or dropped: the caller reconnects */
    } finally {
      clearTimeout(watchdog);
      ac.signal.removeEventListener("abort", letGo);
      reader.cancel().catch(() => {});
    }
    return end;
  }

  #failed(err: unknown, run: number, again: () => Promise<void>): void {
    if (err instanceof ApiError && REFUSALS.has(err.status)) {
      batch(() => {
        this.state.value = "refused";
        this.problem.value = err.detail;
        this.lostSince.value = null;
      });
      return;
    }
    const why = err instanceof ApiError ? err.detail : String(err);
    this.#retry(run, why, again);
  }

  #retry(run: number, why: string, again = () => this.#connect(run)): void {
    const first = this.#deps.firstRetryMs ?? 250;
    const delay = this.#attempt === 0
      ? first
      : backoffMs(this.#attempt, { baseMs: this.#retryMs, maxMs: 30_000 });
    this.#attempt++;
    batch(() => {
      this.state.value = "reconnecting";
      this.problem.value = why;
      this.lostSince.value ??= (this.#deps.now ?? Date.now)();
    });
    this.#wait?.abort();
    const wait = new AbortController();
    this.#wait = wait;
    void (this.#deps.sleep ?? realSleep)(delay, wait.signal).then(() => {
      if (run === this.#run && !wait.signal.aborted) void again();
    });
  }

  /** Rewritten events (`event: event_updated`, a repeated failure's count) replace those held. */
  #replace(records: EventRecord[]): void {
    const byId = new Map(records.map((r) => [r.id, r]));
    if (!this.events.value.some((e) => byId.has(e.id))) return;
    this.events.value = this.events.value.map((e) => byId.get(e.id) ?? e);
  }

  #accept(records: EventRecord[], source: BatchSource): void {
    const fresh: EventRecord[] = [];
    for (const r of [...records].sort((a, b) => a.id - b.id)) {
      if (r.id > this.lastId) {
        fresh.push(r);
        this.lastId = r.id;
      }
    }
    if (!fresh.length) return;
    const max = this.#deps.maxKept ?? 2000;
    const all = this.events.value.concat(fresh);
    this.events.value = all.length > max ? all.slice(all.length - max) : all;
    for (const fn of this.#listeners) fn(fresh, source);
  }
}
