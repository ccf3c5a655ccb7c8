/**
 * Keeps the refusal log from being flooded (docs/access-control.md, "Audit events"): of the
 * `access_denied` events of one client address, and of one caller, at most
 * {@link DENIALS_PER_MINUTE} a minute are stored; the rest are counted, and one summary per
 * minute and source carries the count ("… and 290 more refusals from 127.0.0.1 in the last
 * minute"). The fact is kept, the copies are not.
 *
 * Pure bookkeeping on the injected clock; the audit step writes what it decides.
 * @module
 */
import type { Clock } from "../clock.ts";
import { addressGroup } from "../net/addresses.ts";

export { addressGroup };

/** Refusals stored per client address and per caller in one minute. */
export const DENIALS_PER_MINUTE = 10;
/** Refusals stored in one minute from all sources together (many addresses at once). */
export const ALL_DENIALS_PER_MINUTE = 100;
const WINDOW_MS = 60_000;
/** Sources tracked at the most; the oldest windows are summarised and dropped beyond. */
const MAX_SOURCES = 10_000;

/** Who was refused: the client address, and the caller when a credential was recognised. */
export interface DenialSource {
  address: string;
  caller?: string;
}

/** A summary to store: the refusals of one source that were counted, not stored. */
export interface DenialSummary {
  /** `address` or `caller`. */
  by: "address" | "caller";
  /** The address or the caller's name. */
  source: string;
  suppressed: number;
  /** Start of the window, ms since the epoch (UTC). */
  since: number;
  /** One sentence for the operator. */
  message: string;
}

interface Window {
  start: number;
  stored: number;
  suppressed: number;
}

/** Per-minute windows of refusals by source. */
export class DenialThrottle {
  #clock: Clock;
  #windows = new Map<string, Window>();

  /** @param clock the injected clock (windows are minutes of it) */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * Counts one refusal.
   * @returns `store`: whether its own event is written; `summaries`: windows of these sources
   *   that ended with refusals counted but not stored, to be written first
   */
  take(src: DenialSource): { store: boolean; summaries: DenialSummary[] } {
    const now = this.#clock.now();
    const summaries: DenialSummary[] = [];
    const keys = [`address\0${addressGroup(src.address)}`];
    if (src.caller !== undefined) keys.push(`caller\0${src.caller}`);
    keys.push("all\0every source");
    const windows = keys.map((k) => {
      let w = this.#windows.get(k);
      if (w && now - w.start >= WINDOW_MS) {
        const s = summaryOf(k, w);
        if (s) summaries.push(s);
        w = undefined;
      }
      if (!w) {
        if (this.#windows.size >= MAX_SOURCES) summaries.push(...this.#evictOldest());
        w = { start: now, stored: 0, suppressed: 0 };
        this.#windows.set(k, w);
      }
      return w;
    });
    const full = (w: Window, k: number) =>
      w.stored >= (k === windows.length - 1 ? ALL_DENIALS_PER_MINUTE : DENIALS_PER_MINUTE);
    const store = !windows.some(full);
    if (store) windows.forEach((w) => w.stored++);
    else {
      // Counted once, against the first source that is full (address, caller, then all).
      windows.find(full)!.suppressed++;
    }
    return { store, summaries };
  }

  /**
   * The summaries of windows that have ended (all windows with `all`), which are then dropped;
   * call it on a timer and when the app closes.
   */
  flush(all = false): DenialSummary[] {
    const now = this.#clock.now();
    const out: DenialSummary[] = [];
    for (const [k, w] of this.#windows) {
      if (!all && now - w.start < WINDOW_MS) continue;
      const s = summaryOf(k, w);
      if (s) out.push(s);
      this.#windows.delete(k);
    }
    return out;
  }

  #evictOldest(): DenialSummary[] {
    const out: DenialSummary[] = [];
    for (const [k, w] of this.#windows) {
      if (this.#windows.size < MAX_SOURCES) break;
      const s = summaryOf(k, w);
      if (s) out.push(s);
      this.#windows.delete(k);
    }
    return out;
  }
}

function summaryOf(key: string, w: Window): DenialSummary | undefined {
  if (!w.suppressed) return undefined;
  const [kind, source] = key.split("\0") as ["address" | "caller" | "all", string];
  const by = kind === "caller" ? "caller" : "address";
  const what = kind === "address"
    ? `from ${source}`
    : kind === "caller"
    ? `of caller "${source}"`
    : "from many addresses";
  return {
    by,
    source,
    suppressed: w.suppressed,
    since: w.start,
    message: `… and ${w.suppressed} more refusal${
      w.suppressed === 1 ? "" : "s"
    } ${what} in the last minute (not stored one by one)`,
  };
}
