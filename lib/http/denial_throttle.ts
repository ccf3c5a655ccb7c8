/**
 * Keeps the refusal log from being flooded (docs/access-control.md, "Audit events"). A refusal
 * counts against one source: a recognised caller (its 403 and its 429) against that caller only,
 * wherever it comes from; a refusal without a caller against its client address (an IPv6 one by
 * its /64) and against all addresses together. Of each source at most
 * {@link DENIALS_PER_MINUTE} events a minute are stored (from all addresses together
 * {@link ALL_DENIALS_PER_MINUTE}); the rest are counted, and one summary per minute and source
 * carries the count and the paths refused most ("… and 290 more refusals from 127.0.0.1 in the
 * last minute, most to /v1/config (200), /v1/x (90)"). The fact is kept, the copies are not.
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

/** Distinct paths counted per window (the most frequent are kept, Space-Saving). */
const TRACKED_PATHS = 16;
/** Paths named in a summary. */
const NAMED_PATHS = 3;
/** Longest path kept for a summary, in characters. */
const MAX_SUMMARY_PATH = 100;

/** Who was refused, and where. */
export interface DenialSource {
  /** The client address (docs/access-control.md, "Client address"). */
  address: string;
  /** The caller when a credential was recognised (not an anonymous one). */
  caller?: string;
  /** The path refused (named in a summary when it is among the most refused). */
  path?: string;
}

/** A path among the most refused of a summary. */
export interface RefusedPath {
  path: string;
  /** Refusals counted to it; a lower bound when `approximate`. */
  refusals: number;
  /** True when the path was counted only after others left the table (more may have been). */
  approximate?: boolean;
}

/** A summary to store: the refusals of one source that were counted, not stored. */
export interface DenialSummary {
  /** `address` or `caller`. */
  by: "address" | "caller";
  /** The address or the caller's name. */
  source: string;
  suppressed: number;
  /** The paths of the counted refusals named most, most first. */
  paths: RefusedPath[];
  /** Start of the window, ms since the epoch (UTC). */
  since: number;
  /** One sentence for the operator. */
  message: string;
}

interface Window {
  start: number;
  stored: number;
  suppressed: number;
  /** Suppressed refusals by path: `[count, overestimate]` (Space-Saving; absent until one). */
  paths?: Map<string, [number, number]>;
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
    const keys = src.caller !== undefined
      ? [`caller\0${src.caller}`]
      : [`address\0${addressGroup(src.address)}`, "all\0every source"];
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
      w.stored >= (keys[k].startsWith("all\0") ? ALL_DENIALS_PER_MINUTE : DENIALS_PER_MINUTE);
    const store = !windows.some(full);
    if (store) windows.forEach((w) => w.stored++);
    else {
      // Counted once, against the first source that is full (address, then all).
      const w = windows.find(full)!;
      w.suppressed++;
      if (src.path !== undefined) countPath(w, src.path);
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

/**
 * Counts a suppressed refusal to its path. Past {@link TRACKED_PATHS} distinct paths the least
 * counted one gives way and the newcomer starts from its count (Space-Saving, Metwally et al.
 * 2005): a path refused often is never lost behind many rare ones.
 */
function countPath(w: Window, path: string): void {
  const key = path.length <= MAX_SUMMARY_PATH ? path : path.slice(0, MAX_SUMMARY_PATH - 1) + "…";
  const paths = w.paths ??= new Map();
  const seen = paths.get(key);
  if (seen) {
    seen[0]++;
    return;
  }
  if (paths.size < TRACKED_PATHS) {
    paths.set(key, [1, 0]);
    return;
  }
  let least: string | undefined;
  let min = Infinity;
  for (const [p, [n]] of paths) {
    if (n < min) [least, min] = [p, n];
  }
  paths.delete(least!);
  paths.set(key, [min + 1, min]);
}

/** The most refused paths of a window, most first. */
function topPaths(w: Window): RefusedPath[] {
  return [...(w.paths ?? [])]
    .sort((a, b) => b[1][0] - a[1][0])
    .slice(0, NAMED_PATHS)
    .map(([path, [n, over]]) =>
      over ? { path, refusals: n - over, approximate: true } : { path, refusals: n }
    );
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
  const paths = topPaths(w);
  const most = paths.length
    ? `, most to ${
      paths.map((p) => `${p.path} (${p.approximate ? "at least " : ""}${p.refusals})`).join(", ")
    }`
    : "";
  return {
    by,
    source,
    suppressed: w.suppressed,
    paths,
    since: w.start,
    message: `… and ${w.suppressed} more refusal${
      w.suppressed === 1 ? "" : "s"
    } ${what} in the last minute${most}; not stored one by one`,
  };
}
