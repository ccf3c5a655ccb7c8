/**
 * One reader of the event hub (`event_hub.ts`; docs/architecture.md, "Event log and live
 * stream"): what a reader receives, its cursor, and the shared encoded batches. The hub hands
 * each reader the batches in id order; a reader behind the head first reads the stored events
 * from KV while live batches wait in its queue.
 * @module
 */
import type { EventLog, EventRecord } from "./events.ts";

/**
 * Turns a run of records into the bytes readers send on. Called once per batch; its result is
 * shared by every reader, so it must be a pure function of the records.
 */
export type BatchEncoder = (records: readonly EventRecord[]) => Uint8Array;
/** The bytes of one rewritten event (the stream route's `encodeSseUpdate`). */
export type UpdateEncoder = (record: EventRecord) => Uint8Array;

/** What a reader receives. */
export interface HubReader {
  /**
   * Called with events in id order, each exactly once, strictly after the start cursor.
   * `encoded` is their encoding by the hub's {@link BatchEncoder}; it is shared with other
   * readers and must not be modified.
   */
  onEvents(records: readonly EventRecord[], encoded: Uint8Array): void;
  /** Called every `heartbeatMs` while subscribed (the reader sends its keep-alive). */
  onHeartbeat(): void;
  /** Optional: this process rewrote an event the reader has (`EventLog.update`), encoded. */
  onUpdate?(record: EventRecord, encoded: Uint8Array): void;
  /** Called once if reading fails (the reader should close). */
  onError(err: unknown): void;
  /** Called once on {@link EventHub.shutdown} (else `onError`): send a last message, close. */
  onEnd?(): void;
}

/** Records a catch-up reads from KV per page. */
export const CATCH_UP_PAGE = 500;

/** Ends `reader` on shutdown: its `onEnd`, else its `onError`; a throw is swallowed. */
export function endReader(reader: HubReader): void {
  try {
    reader.onEnd ? reader.onEnd() : reader.onError(new Error("event hub shut down"));
  } catch { /* the reader is gone either way */ }
}

/** A run of records with consecutive ids, encoded at most once. */
export class Batch {
  readonly records: readonly EventRecord[];
  #encode: BatchEncoder;
  #encoded: Uint8Array | undefined;

  constructor(records: readonly EventRecord[], encode: BatchEncoder) {
    this.records = records;
    this.#encode = encode;
  }

  get firstId(): number {
    return this.records[0].id;
  }

  get lastId(): number {
    return this.records[this.records.length - 1].id;
  }

  get encoded(): Uint8Array {
    return this.#encoded ??= this.#encode(this.records);
  }
}

/**
 * One reader's cursor. Live (no queue) it emits each batch synchronously; while it reads stored
 * events from KV, the batches the hub hands it wait in its queue.
 */
export class Reader {
  closed = false;
  #cursor: number;
  #log: EventLog;
  #encode: BatchEncoder;
  #reader: HubReader;
  #release: () => void;
  /** Batches that arrived during a catch-up; `undefined` while live. */
  #queue: Batch[] | undefined;

  /** @param release removes this reader from the hub (called once, on close or failure) */
  constructor(
    log: EventLog,
    encode: BatchEncoder,
    cursor: number,
    reader: HubReader,
    release: () => void,
  ) {
    this.#log = log;
    this.#encode = encode;
    this.#cursor = cursor;
    this.#reader = reader;
    this.#release = release;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.#queue = undefined;
    this.#release();
  }

  /** A live batch (consecutive ids, each batch continuing the previous one). */
  push(batch: Batch): void {
    if (this.closed) return;
    if (this.#queue) {
      this.#queue.push(batch);
      return;
    }
    if (batch.lastId <= this.#cursor) return;
    const skip = this.#cursor + 1 - batch.firstId;
    if (skip === 0) this.#emit(batch.records, batch.encoded);
    else if (skip > 0) this.#emitRecords(batch.records.slice(skip));
    else {
      // Defensive: the hub never leaves a gap, but if it did, read it from KV.
      this.#queue = [batch];
      this.#fill(batch.firstId - 1);
    }
  }

  /** Reads the stored events after the cursor up to `target` before going live. */
  catchUp(target: number): void {
    this.#queue = [];
    this.#fill(target);
  }

  /** A rewritten event: passed on when the reader is live and already has it. */
  update(record: EventRecord, encoded: () => Uint8Array): void {
    if (this.closed || this.#queue || record.id > this.#cursor || !this.#reader.onUpdate) return;
    try {
      this.#reader.onUpdate(record, encoded());
    } catch (err) {
      this.fail(err);
    }
  }

  heartbeat(): void {
    if (this.closed) return;
    try {
      this.#reader.onHeartbeat();
    } catch (err) {
      this.fail(err);
    }
  }

  /** The hub shuts down (it already let this reader go): tells the reader to end, once. */
  end(): void {
    if (this.closed) return;
    this.closed = true;
    endReader(this.#reader);
  }

  /** Delivery failed: leaves the hub, then tells the reader (once). */
  fail(err: unknown): void {
    if (this.closed) return;
    this.close();
    try {
      this.#reader.onError(err);
    } catch { /* the reader is gone either way */ }
  }

  async #fill(target: number): Promise<void> {
    try {
      const queue = this.#queue!;
      for (;;) {
        while (!this.closed && this.#cursor < target) {
          const page = await this.#log.list({ afterId: this.#cursor, limit: CATCH_UP_PAGE });
          if (this.closed) return;
          if (!page.length) {
            throw new Error(`event log: ids after ${this.#cursor} missing from the store`);
          }
          this.#emitRecords(page);
        }
        if (this.closed) return;
        // Drain the batches queued meanwhile; they continue the live run without gaps.
        while (!this.closed && queue.length && queue[0].firstId <= this.#cursor + 1) {
          const batch = queue.shift()!;
          if (batch.lastId <= this.#cursor) continue;
          const skip = this.#cursor + 1 - batch.firstId;
          if (skip === 0) this.#emit(batch.records, batch.encoded);
          else this.#emitRecords(batch.records.slice(skip));
        }
        if (!queue.length) {
          this.#queue = undefined;
          return;
        }
        target = queue[0].firstId - 1;
      }
    } catch (err) {
      this.fail(err);
    }
  }

  #emitRecords(records: readonly EventRecord[]): void {
    if (records.length) this.#emit(records, this.#encode(records));
  }

  #emit(records: readonly EventRecord[], encoded: Uint8Array): void {
    this.#cursor = records[records.length - 1].id;
    try {
      this.#reader.onEvents(records, encoded);
    } catch (err) { // one broken reader never keeps a batch from the others
      this.fail(err);
    }
  }
}
