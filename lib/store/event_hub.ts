/**
 * Live delivery of the operations log to many readers (docs/architecture.md, "Event log and live stream").
 *
 * One hub per process. It receives this process's commits directly from the {@link EventLog}
 * and polls `["events_head"]` every `pollMs` for events other processes appended to the same KV
 * file (which `kv.watch` does not see). The hub is the one sequencer of live events: it hands
 * its readers a gap-free run of ids, filling from KV — once, for all readers — whatever another
 * process wrote between two of our commits.
 *
 * The hub knows no wire format: it is given a {@link BatchEncoder} (the stream route's is
 * Server-Sent Events, `lib/http/sse.ts`), calls it once per batch and shares those bytes with
 * every reader. A reader that is up to date gets them synchronously, in the same call as the
 * commit (no per-reader promise, stringify or encode). A reader that joins behind the head
 * (resume from `Last-Event-ID` / `after_id`) first reads the stored events after its cursor from
 * KV while live batches wait in its own queue; then it drains that queue and goes live. A reader
 * keeps its own cursor and drops ids it already has, so no event is skipped or delivered twice.
 * Timers and the log listener run only while someone listens; `shutdown` ends every reader.
 * @module
 */
import type { EventLog, EventRecord } from "./events.ts";
import {
  Batch,
  type BatchEncoder,
  CATCH_UP_PAGE,
  endReader,
  type HubReader,
  Reader,
  type UpdateEncoder,
} from "./event_hub_reader.ts";

export type { BatchEncoder, HubReader, UpdateEncoder } from "./event_hub_reader.ts";

/** One reader of the live log. */
export interface HubSubscription {
  /** Stops delivery and releases the hub's timers when this was the last reader. */
  close(): void;
}

/** Heartbeat period of the live stream, in ms: short enough that proxies keep it open. */
export const HEARTBEAT_MS = 15_000;

/** Fans the log out to live readers. */
export class EventHub {
  #log: EventLog;
  #encode: BatchEncoder;
  #pollMs: number;
  #heartbeatMs: number;
  #readers = new Set<Reader>();
  /** Id of the last event handed to the readers (every later batch starts right after it). */
  #lastId = 0;
  /** Local commits that arrived while the hub was reading a gap from KV, in order. */
  #pending: EventRecord[][] = [];
  /** Read KV at least up to this id (set by the poll when another process appended). */
  #target = 0;
  #syncing = false;
  /** Bumped when the last reader leaves, so a read still under way from before is dropped. */
  #epoch = 0;
  #starting: Promise<void> | undefined;
  #poll: ReturnType<typeof setInterval> | undefined;
  #beat: ReturnType<typeof setInterval> | undefined;
  #unsubscribe: (() => void) | undefined;
  #unsubscribeUpdates: (() => void) | undefined;
  #encodeUpdate: UpdateEncoder | undefined;
  #polling = false;
  /** Set by {@link EventHub.shutdown}: no reader is taken any more. */
  #shutDown = false;

  /**
   * @param log the log to deliver
   * @param encode builds the bytes of a batch, once for every reader (the stream route's
   *   Server-Sent Events encoder, `encodeSseEvents` of `lib/http/sse.ts`)
   * @param opts `pollMs`: how often to look for other processes' events (default 500 ms);
   *   `heartbeatMs`: heartbeat period (default 15 s); `encodeUpdate`: the bytes of a rewritten
   *   event (`encodeSseUpdate`); without it, rewrites are not passed on
   */
  constructor(
    log: EventLog,
    encode: BatchEncoder,
    opts: { pollMs?: number; heartbeatMs?: number; encodeUpdate?: UpdateEncoder } = {},
  ) {
    this.#log = log;
    this.#encode = encode;
    this.#encodeUpdate = opts.encodeUpdate;
    this.#pollMs = opts.pollMs ?? 500;
    this.#heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_MS;
  }

  /**
   * Subscribes from `afterId`: first the stored events after it, then live ones.
   * @param afterId last id the reader already has (0 = from the beginning)
   * @throws whatever reading the head from KV throws (then nothing stays subscribed)
   */
  async subscribe(afterId: number, reader: HubReader): Promise<HubSubscription> {
    while (!this.#unsubscribe) {
      if (this.#shutDown) {
        endReader(reader);
        return { close: () => {} };
      }
      this.#starting ??= this.#start().finally(() => this.#starting = undefined);
      await this.#starting;
    }
    const r: Reader = new Reader(this.#log, this.#encode, afterId, reader, () => {
      if (this.#readers.delete(r) && this.#readers.size === 0) this.#stop();
    });
    this.#readers.add(r);
    // Behind the live run: read the stored events up to it first (live ones queue meanwhile).
    if (afterId < this.#lastId) r.catchUp(this.#lastId);
    return { close: () => r.close() };
  }

  /** Number of live readers. */
  get size(): number {
    return this.#readers.size;
  }

  /** Ends every live reader and later ones ({@link HubReader.onEnd}); the process stops. */
  shutdown(): void {
    this.#shutDown = true;
    const readers = [...this.#readers];
    this.#readers.clear();
    this.#stop();
    for (const r of readers) r.end();
  }

  async #start(): Promise<void> {
    const head = await this.#log.head();
    if (this.#unsubscribe || this.#shutDown) return;
    this.#lastId = head;
    this.#target = head;
    // A local commit between the read above and this line shows up as a gap and is filled.
    this.#unsubscribe = this.#log.subscribe((records) => this.#accept(records));
    const encodeUpdate = this.#encodeUpdate;
    // Readers that have the record get the rewrite; one still behind reads it from KV.
    this.#unsubscribeUpdates = encodeUpdate && this.#log.subscribeUpdates((record) => {
      let bytes: Uint8Array | undefined;
      for (const r of this.#readers) r.update(record, () => bytes ??= encodeUpdate(record));
    });
    this.#poll = setInterval(() => this.#pollHead(), this.#pollMs);
    this.#beat = setInterval(() => {
      for (const r of this.#readers) r.heartbeat();
    }, this.#heartbeatMs);
  }

  #stop(): void {
    clearInterval(this.#poll);
    clearInterval(this.#beat);
    this.#unsubscribe?.();
    this.#unsubscribeUpdates?.();
    this.#poll = this.#beat = this.#unsubscribe = undefined;
    this.#unsubscribeUpdates = undefined;
    this.#pending = [];
    this.#syncing = false;
    this.#epoch++;
  }

  /** A local commit (consecutive ids): straight to the readers unless a gap must be read first. */
  #accept(records: EventRecord[]): void {
    if (!records.length) return;
    if (!this.#syncing && !this.#pending.length) {
      const last = records[records.length - 1].id;
      if (last <= this.#lastId) return;
      const skip = this.#lastId + 1 - records[0].id;
      if (skip >= 0) {
        this.#broadcast(skip ? records.slice(skip) : records);
        return;
      }
    }
    // Another process's events lie before these (or a read is under way): keep the order.
    this.#pending.push(records);
    this.#sync();
  }

  /** Hands a run that starts right after {@link EventHub.#lastId} to every reader. */
  #broadcast(records: readonly EventRecord[]): void {
    const batch = new Batch(records, this.#encode);
    this.#lastId = batch.lastId;
    for (const r of this.#readers) r.push(batch);
  }

  /** Releases the pending local commits that now connect to the live run. */
  #drainPending(): void {
    while (this.#pending.length) {
      const records = this.#pending[0];
      const skip = this.#lastId + 1 - records[0].id;
      if (skip < 0) return;
      this.#pending.shift();
      if (skip < records.length) this.#broadcast(skip ? records.slice(skip) : records);
    }
  }

  /**
   * Reads from KV what lies between the live run and the next pending local commit (or the
   * target the poll saw), once for all readers. One read loop at a time.
   */
  async #sync(): Promise<void> {
    if (this.#syncing) return;
    this.#syncing = true;
    const epoch = this.#epoch;
    try {
      for (;;) {
        this.#drainPending();
        const want = this.#pending.length ? this.#pending[0][0].id - 1 : this.#target;
        if (this.#lastId >= want || !this.#readers.size) break;
        const page = await this.#log.list({ afterId: this.#lastId, limit: CATCH_UP_PAGE });
        if (epoch !== this.#epoch) return;
        const fresh = page.filter((e) => e.id > this.#lastId);
        if (!fresh.length || fresh[0].id !== this.#lastId + 1) {
          throw new Error(`event log: ids after ${this.#lastId} missing from the store`);
        }
        this.#broadcast(fresh);
      }
    } catch (err) {
      if (epoch !== this.#epoch) return;
      this.#pending = [];
      for (const r of this.#readers) r.fail(err);
    } finally {
      if (epoch === this.#epoch) this.#syncing = false;
    }
  }

  /** Looks for events other processes appended (the head moved past what we delivered). */
  async #pollHead(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    const epoch = this.#epoch;
    try {
      const head = await this.#log.head();
      if (epoch !== this.#epoch) return;
      if (head > this.#target) this.#target = head;
      if (this.#target > this.#lastId) await this.#sync();
    } catch (err) {
      if (epoch === this.#epoch) { for (const r of this.#readers) r.fail(err); }
    } finally {
      this.#polling = false;
    }
  }
}
