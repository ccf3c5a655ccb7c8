/**
 * Live delivery of the operations log to many readers (SPEC §6; DESIGN §5–§6).
 *
 * One hub per process: it receives this process's commits directly from the {@link EventLog}
 * and polls `["events_head"]` every `pollMs` for events other processes appended to the same KV
 * file (which `kv.watch` does not see). Each new batch is read from KV once and handed to every
 * subscriber. A subscriber keeps its own cursor: it drops ids it already has and fills any gap
 * from KV itself, so no event is skipped or delivered twice. Timers run only while someone
 * listens.
 * @module
 */
import type { EventLog, EventRecord } from "./events.ts";

/** One reader of the live log. */
export interface HubSubscription {
  /** Stops delivery and releases the hub's timers when this was the last reader. */
  close(): void;
}

/** What a reader receives. */
export interface HubReader {
  /** Called with events in id order, each exactly once, strictly after the start cursor. */
  onEvents(records: EventRecord[]): void;
  /** Called every `heartbeatMs` while subscribed. */
  onHeartbeat(): void;
  /** Called once if reading fails (the reader should close). */
  onError(err: unknown): void;
}

const CATCH_UP_PAGE = 500;

/** Fans the log out to live readers. */
export class EventHub {
  #log: EventLog;
  #pollMs: number;
  #heartbeatMs: number;
  #readers = new Set<Reader>();
  #lastId = 0;
  #poll: ReturnType<typeof setInterval> | undefined;
  #beat: ReturnType<typeof setInterval> | undefined;
  #unsubscribe: (() => void) | undefined;
  #polling = false;

  /**
   * @param pollMs how often to look for other processes' events (default 500 ms)
   * @param heartbeatMs heartbeat period per reader (default 15 s)
   */
  constructor(log: EventLog, opts: { pollMs?: number; heartbeatMs?: number } = {}) {
    this.#log = log;
    this.#pollMs = opts.pollMs ?? 500;
    this.#heartbeatMs = opts.heartbeatMs ?? 15_000;
  }

  /**
   * Subscribes from `afterId`: first the stored events after it, then live ones.
   * @param afterId last id the reader already has (0 = from the beginning)
   */
  async subscribe(afterId: number, reader: HubReader): Promise<HubSubscription> {
    const r = new Reader(this.#log, afterId, reader);
    if (this.#readers.size === 0) await this.#startTimers();
    this.#readers.add(r);
    r.push([]); // catch up from KV
    return {
      close: () => {
        r.closed = true;
        if (this.#readers.delete(r) && this.#readers.size === 0) this.#stopTimers();
      },
    };
  }

  /** Number of live readers. */
  get size(): number {
    return this.#readers.size;
  }

  async #startTimers(): Promise<void> {
    this.#lastId = await this.#log.head();
    this.#unsubscribe = this.#log.subscribe((records) => this.#deliver(records));
    this.#poll = setInterval(() => this.#pollHead(), this.#pollMs);
    this.#beat = setInterval(() => {
      for (const r of this.#readers) r.reader.onHeartbeat();
    }, this.#heartbeatMs);
  }

  #stopTimers(): void {
    clearInterval(this.#poll);
    clearInterval(this.#beat);
    this.#unsubscribe?.();
    this.#poll = this.#beat = this.#unsubscribe = undefined;
  }

  #deliver(records: EventRecord[]): void {
    if (!records.length) return;
    this.#lastId = Math.max(this.#lastId, records[records.length - 1].id);
    for (const r of this.#readers) r.push(records);
  }

  async #pollHead(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const head = await this.#log.head();
      while (head > this.#lastId && this.#readers.size) {
        const page = await this.#log.list({ afterId: this.#lastId, limit: CATCH_UP_PAGE });
        if (!page.length) break;
        this.#deliver(page);
      }
    } catch (err) {
      for (const r of this.#readers) r.reader.onError(err);
    } finally {
      this.#polling = false;
    }
  }
}

/** A reader's cursor and its serialised delivery queue. */
class Reader {
  closed = false;
  #cursor: number;
  #log: EventLog;
  #chain: Promise<void> = Promise.resolve();
  readonly reader: HubReader;

  constructor(log: EventLog, cursor: number, reader: HubReader) {
    this.#log = log;
    this.#cursor = cursor;
    this.reader = reader;
  }

  /** Queues a batch; fills a gap before it from KV; drops what was already delivered. */
  push(records: EventRecord[]): void {
    this.#chain = this.#chain.then(async () => {
      if (this.closed) return;
      const firstId = records.length ? records[0].id : Infinity;
      // Gap (or initial catch-up): read from KV up to just before this batch.
      while (!this.closed && this.#cursor + 1 < firstId) {
        const page = await this.#log.list({ afterId: this.#cursor, limit: CATCH_UP_PAGE });
        const upTo = page.filter((e) => e.id < firstId);
        if (!upTo.length) break;
        this.#emit(upTo);
        if (upTo.length < page.length || page.length < CATCH_UP_PAGE) break;
      }
      if (!this.closed) this.#emit(records.filter((e) => e.id > this.#cursor));
    }).catch((err) => {
      if (!this.closed) this.reader.onError(err);
    });
  }

  #emit(records: EventRecord[]): void {
    if (!records.length) return;
    this.#cursor = records[records.length - 1].id;
    this.reader.onEvents(records);
  }
}
