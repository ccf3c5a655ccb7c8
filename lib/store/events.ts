/**
 * The operations log (docs/architecture.md, "Event log and live stream"): append with strictly increasing integer ids,
 * read pages, and notify live readers.
 *
 * Appends are group-committed: appends that arrive while a commit is in flight are written
 * together in the next atomic (ids and `["events_head"]` in the same atomic), and each caller's
 * promise resolves only once its record is durable.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { EventRecord, NewEvent } from "../wire/events.ts";
import { retryKv } from "./kv.ts";
import { retryWithTurn, type TurnGuard } from "./turn.ts";
import { Redactor } from "./redactor.ts";
import { KEYS } from "./keys.ts";

export { EVENT_KINDS } from "../wire/events.ts";
export type { EventKind, EventLevel, EventRecord, NewEvent } from "../wire/events.ts";

/** Longest `path` stored in an event, in characters (docs/access-control.md, "Audit events"). */
export const MAX_EVENT_PATH = 200;

/** `event` with its `path` cut to {@link MAX_EVENT_PATH} characters (the last one `…`). */
function boundPath(event: NewEvent): NewEvent {
  if (event.path === undefined || event.path.length <= MAX_EVENT_PATH) return event;
  return { ...event, path: event.path.slice(0, MAX_EVENT_PATH - 1) + "…" };
}

const HEAD = KEYS.eventsHead;
/** Records read at most for one filtered page of history. */
const MAX_FILTER_SCAN = 10_000;
/** Events per atomic: well under KV's 1,000 mutations and its total size limit. */
const MAX_BATCH = 200;
const MAX_BATCH_BYTES = 400_000;

/** `["events_head"]` as of our last successful commit. */
interface HeadState {
  id: number;
  versionstamp: string | null;
}

interface Pending {
  event: NewEvent;
  resolve: (r: EventRecord) => void;
  reject: (e: unknown) => void;
}

/** The persistent operations log on one KV store. */
export class EventLog {
  #kv: Deno.Kv;
  #clock: Clock;
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  #listeners = new Set<(records: EventRecord[]) => void>();
  #updateListeners = new Set<(record: EventRecord) => void>();
  #redactor: Redactor;
  /** Told of every record this process stored (the process log); not a live listener. */
  #onStored: ((records: EventRecord[]) => void) | undefined;
  /** The head our last commit wrote; `undefined` until then or after a failed check. */
  #head: HeadState | undefined;

  /**
   * @param kv the store
   * @param clock the time source for `ts`
   * @param redactor secrets masked in every record before it is stored (default: none known)
   * @param opts.onStored told of every record this process stored, after the commit (the
   *   process log writes its lines from here)
   */
  constructor(
    kv: Deno.Kv,
    clock: Clock,
    redactor: Redactor = new Redactor(),
    opts: { onStored?: (records: EventRecord[]) => void } = {},
  ) {
    this.#kv = kv;
    this.#clock = clock;
    this.#redactor = redactor;
    this.#onStored = opts.onStored;
  }

  /** The secrets this log masks; add one before anything could quote it. */
  get redactor(): Redactor {
    return this.#redactor;
  }

  /** Number of live listeners (see {@link EventLog.subscribe}); 0 when no stream is open. */
  get listenerCount(): number {
    return this.#listeners.size;
  }

  /**
   * Appends one event; resolves with the stored record once it is durable.
   * @throws {KvContentionError} when the head stayed contended through every retry
   */
  append(event: NewEvent): Promise<EventRecord> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ event, resolve, reject });
      if (!this.#flushing) this.#flushing = this.#flush();
    });
  }

  /** Waits until every append made so far is committed (or failed). */
  async drain(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async #flush(): Promise<void> {
    // Let appends made in the same tick join the first batch.
    await Promise.resolve();
    try {
      while (this.#queue.length) {
        const batch: Pending[] = [];
        let bytes = 0;
        while (this.#queue.length && batch.length < MAX_BATCH && bytes < MAX_BATCH_BYTES) {
          const p = this.#queue.shift()!;
          // No secret is ever stored, whatever the message quotes; masked before any cut
          // (docs/access-control.md, "Secrets").
          p.event = boundPath(this.#redactor.redact(p.event));
          bytes += JSON.stringify(p.event).length + 100;
          batch.push(p);
        }
        try {
          const records = await this.#commit(batch.map((p) => p.event));
          batch.forEach((p, i) => p.resolve(records[i]));
          this.#onStored?.(records);
          for (const l of this.#listeners) l(records);
        } catch (err) {
          batch.forEach((p) => p.reject(err));
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /**
   * Writes one batch: ids continue from `["events_head"]`, records and head in one atomic that
   * checks the head's versionstamp. The head of our own last commit is remembered, so while this
   * process is the only writer a commit costs one KV round trip; when another process appended in
   * between, the check fails, the head is read again and the atomic retried at once (a second
   * failure goes through the backoff of {@link retryWithTurn}). Ids thus stay strictly
   * increasing, without gap or duplicate, across every process on the store. A process that keeps
   * losing to another one's appends takes the events turn (`./turn.ts`) and gets its batch in.
   */
  #commit(events: NewEvent[]): Promise<EventRecord[]> {
    return retryWithTurn(this.#kv, KEYS.eventsTurn, "append events", async (turn) => {
      const known = this.#head;
      if (known) {
        const records = await this.#tryCommit(events, known, turn);
        if (records) return records;
      }
      const head = await this.#kv.get<number>(HEAD);
      return await this.#tryCommit(events, {
        id: head.value ?? 0,
        versionstamp: head.versionstamp,
      }, turn);
    });
  }

  /** One check-and-commit against `head`; `undefined` (remembered head dropped) if the check fails. */
  async #tryCommit(
    events: NewEvent[],
    head: HeadState,
    turn: TurnGuard,
  ): Promise<EventRecord[] | undefined> {
    this.#head = undefined; // until this commit is known to have succeeded
    let id = head.id;
    const ts = new Date(this.#clock.now()).toISOString();
    const records = events.map((e): EventRecord => ({
      ...e,
      level: e.level ?? "info",
      id: ++id,
      ts,
    }));
    const op = turn.guard(this.#kv.atomic()).check({ key: HEAD, versionstamp: head.versionstamp });
    for (const r of records) op.set(KEYS.event(r.id), r);
    op.set(HEAD, id);
    const res = await op.commit();
    if (!res.ok) return undefined;
    this.#head = { id, versionstamp: res.versionstamp };
    return records;
  }

  /** Id of the newest committed event, 0 when the log is empty. */
  async head(): Promise<number> {
    return (await this.#kv.get<number>(HEAD, { consistency: "strong" })).value ?? 0;
  }

  /**
   * Reads a page of history, oldest first.
   * @param opts `limit` 1..1000; `afterId` to page forward, else the newest `limit` events;
   *   `filter`: only the records it accepts count towards `limit`
   * @returns the page and `scannedTo`: the id up to which the log was read — with a filter, the
   *   `after_id` of the next page (records that did not match are not read twice)
   */
  async list(opts: {
    limit: number;
    afterId?: number;
    filter?: (e: EventRecord) => boolean;
  }): Promise<EventRecord[] & { scannedTo?: number }> {
    const out: EventRecord[] & { scannedTo?: number } = [];
    const keep = opts.filter ?? (() => true);
    // With a filter, at most this many records are read for one page (a rare kind in a long log
    // is found page by page, never by one unbounded scan).
    const budget = opts.filter ? MAX_FILTER_SCAN : opts.limit;
    if (opts.afterId !== undefined) {
      const iter = this.#kv.list<EventRecord>(
        { start: KEYS.event(opts.afterId + 1), end: KEYS.event(Number.MAX_SAFE_INTEGER) },
        { limit: budget, batchSize: Math.min(budget, 500) },
      );
      let last = opts.afterId;
      for await (const e of iter) {
        last = e.value.id;
        if (keep(e.value)) out.push(e.value);
        if (out.length === opts.limit) break;
      }
      out.scannedTo = last;
      return out;
    }
    const iter = this.#kv.list<EventRecord>({ prefix: KEYS.events }, {
      limit: budget,
      reverse: true,
      batchSize: Math.min(budget, 500),
    });
    let newest: number | undefined;
    for await (const e of iter) {
      newest ??= e.value.id;
      if (keep(e.value)) out.push(e.value);
      if (out.length === opts.limit) break;
    }
    out.reverse();
    // With a filter, the next page starts after the newest record read, not at the beginning.
    if (opts.filter && newest !== undefined) out.scannedTo = newest;
    return out;
  }

  /**
   * Rewrites the `message` of a stored event and merges `data` into its data (a repeated
   * failure's count, `lib/store/repeated_failures.ts`); `id`, `ts`, `kind` and `level` stay. The patch is masked
   * like an append. Live listeners of this process are told ({@link EventLog.subscribeUpdates});
   * the process log is not (a repeat writes no line).
   * @param accept the stored record is rewritten only when this returns true (e.g. only a
   *   higher count: two replicas' rewrites may arrive out of order)
   * @returns the stored record, or `null` when no event has that id or `accept` declined
   * @throws {KvContentionError} when the record stayed contended through every retry
   */
  async update(
    id: number,
    patch: { message?: string; data?: Record<string, unknown> },
    accept: (current: EventRecord) => boolean = () => true,
  ): Promise<EventRecord | null> {
    const key = KEYS.event(id);
    const masked = this.#redactor.redact(patch);
    const record = await retryKv("update event", async () => {
      const cur = await this.#kv.get<EventRecord>(key);
      if (!cur.value || !accept(cur.value)) return null;
      const next: EventRecord = {
        ...cur.value,
        ...(masked.message !== undefined ? { message: masked.message } : {}),
        ...(masked.data ? { data: { ...cur.value.data, ...masked.data } } : {}),
      };
      return (await this.#kv.atomic().check(cur).set(key, next).commit()).ok ? next : undefined;
    });
    if (record) { for (const l of this.#updateListeners) l(record); }
    return record;
  }

  /**
   * Registers a callback run with each event this process rewrote ({@link EventLog.update});
   * returns the unsubscribe function.
   */
  subscribeUpdates(fn: (record: EventRecord) => void): () => void {
    this.#updateListeners.add(fn);
    return () => this.#updateListeners.delete(fn);
  }

  /**
   * Registers a callback run with the records of each local commit (ids contiguous within one
   * call; other processes' events may lie between two calls). Returns an unsubscribe function.
   */
  subscribe(fn: (records: EventRecord[]) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }
}
