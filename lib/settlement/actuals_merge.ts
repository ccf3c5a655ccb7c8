/**
 * How new values of one owner and delivery day merge into its stored record (docs/settlement.md,
 * "Actuals"), pure:
 * - a later value for a quarter-hour replaces the earlier one, with its kind (true, substitute,
 *   provisional; `./mscons_codes.ts` `QUALITY`) and, for a substitute value, its method and reason;
 * - a value the sender reports **missing** (`QTY+Z30`) never erases a known value; where none is
 *   known the quarter-hour is marked missing;
 * - a **monthly settlement series** (`BGM+BK`) carries a version: a newer version replaces the
 *   whole record, an older one — and a daily sum after a monthly version — changes nothing.
 * The counts say what happened, for the answer and the event.
 * @module
 */
import type { DayRun } from "./day_split.ts";
import { QUALITY } from "./mscons_codes.ts";
import type { MeteredSeries, SubstituteNote } from "./series.ts";

/** What a record of actuals says beside its values, stored and read alike. */
export interface ActualsFacts {
  /** Kind of each value (`QUALITY` of `./mscons_codes.ts`); absent: every value a true value. */
  quality?: Uint8Array;
  /** Method and reason of each substitute value, by quarter-hour index of the day. */
  substitutes?: Record<number, SubstituteNote>;
  /** Version of a monthly settlement series (ISO-8601 UTC); absent otherwise. */
  version?: string;
  /** The sender's market partner id (MSCONS `NAD+MS`): the DSO of a balancing-group sum. */
  sender?: string;
  /** ISO-8601 UTC instant of the last change. */
  updated_at: string;
  /** Where the last change came from (message or file, caller). */
  source: string;
}

/** One record as stored: the values packed (`NaN` = no value); owner and day are the key's. */
export interface PackedActuals extends ActualsFacts {
  /** kWh per quarter-hour of the day; `NaN` where not metered yet or reported missing. */
  kwh: Float64Array;
}

/** The values of one owner and day to write: runs of one series each, in the order of the input. */
export interface Part {
  series: MeteredSeries;
  day: string;
  runs: DayRun[];
}

/** What merging did (summed over a batch for the answer). */
export interface MergeCounts {
  added: number;
  replaced: number;
  unchanged: number;
  /** Quarter-hours now holding a substitute value / a provisional value. */
  substitutes: number;
  provisional: number;
  /** Quarter-hours reported missing where no value was known. */
  missing: number;
}

/** The count names of {@link MergeCounts}. */
export const COUNTS = [
  "added",
  "replaced",
  "unchanged",
  "substitutes",
  "provisional",
  "missing",
] as const;

/** Counts of nothing yet. */
export function noCounts(): MergeCounts {
  return { added: 0, replaced: 0, unchanged: 0, substitutes: 0, provisional: 0, missing: 0 };
}

/** The outcome for one record: the record to write (`null`: nothing changed) and the counts. */
export interface Merged {
  record: PackedActuals | null;
  counts: MergeCounts;
  replaced: number;
  /** Set when the input's version is older than the stored one: nothing was merged. */
  older?: { version: string | null; stored: string };
}

/**
 * Merges `part` into `stored` (absent: a new record of `n` quarter-hours).
 * @param at ISO-8601 UTC instant of the change; `source` where it came from
 */
export function mergeRecord(
  stored: PackedActuals | null,
  part: Part,
  n: number,
  at: string,
  source: string,
): Merged {
  const counts = noCounts();
  const version = part.series.version ?? null;
  if (stored?.version && (version === null || version < stored.version)) {
    return { record: null, counts, replaced: 0, older: { version, stored: stored.version } };
  }
  const newer = version !== null && version !== stored?.version;
  const base = stored && !newer ? stored : null;
  const kwh = base ? base.kwh.slice() : new Float64Array(n).fill(NaN);
  let quality = base?.quality?.slice();
  let notes = base?.substitutes ? { ...base.substitutes } : undefined;
  let changed = newer;
  const { quality: q, substitutes: subs } = part.series;
  for (const run of part.runs) {
    for (let k = 0; k < run.values.length; k++) {
      const idx = run.first + k, v = run.values[k];
      const kind = q ? q[run.offset + k] : QUALITY.TRUE;
      const note = kind === QUALITY.SUBSTITUTE ? subs?.[run.offset + k] ?? null : null;
      const old = stored?.kwh[idx] ?? NaN;
      const oldKind = stored?.quality?.[idx] ?? QUALITY.TRUE;
      if (kind === QUALITY.MISSING) {
        if (!Number.isNaN(kwh[idx])) continue; // a known value stays
        if ((quality?.[idx] ?? QUALITY.TRUE) !== QUALITY.MISSING) changed = true;
        (quality ??= new Uint8Array(n))[idx] = QUALITY.MISSING;
        counts.missing++;
        continue;
      }
      if (Number.isNaN(old)) counts.added++;
      else if (old === v && oldKind === kind && sameNote(stored?.substitutes?.[idx], note)) {
        counts.unchanged++;
      } else counts.replaced++;
      if (!(old === v && oldKind === kind)) changed = true;
      kwh[idx] = v;
      if (kind !== QUALITY.TRUE || quality) (quality ??= new Uint8Array(n))[idx] = kind;
      if (!sameNote(notes?.[idx], note)) {
        changed = true;
        if (note) (notes ??= {})[idx] = note;
        else delete notes![idx];
      }
      if (kind === QUALITY.SUBSTITUTE) counts.substitutes++;
      if (kind === QUALITY.PROVISIONAL) counts.provisional++;
    }
  }
  if (quality && quality.every((x) => x === QUALITY.TRUE)) quality = undefined;
  if (notes && Object.keys(notes).length === 0) notes = undefined;
  if (!changed) return { record: null, counts, replaced: counts.replaced };
  const record: PackedActuals = { kwh, updated_at: at, source };
  if (quality) record.quality = quality;
  if (notes) record.substitutes = notes;
  if (version !== null) record.version = version;
  const sender = part.series.sender ?? base?.sender;
  if (sender) record.sender = sender;
  return { record, counts, replaced: counts.replaced };
}

function sameNote(a: SubstituteNote | undefined, b: SubstituteNote | null): boolean {
  if (!a || !b) return !a && !b;
  return a.method === b.method && a.reason === b.reason;
}
