/**
 * Which quarter-hours of an area's actual rest on values that are not plain true values
 * (docs/settlement.md, "Computation"): substitute values (MSCONS `QTY+67`, with the method and
 * reason the DSO gave in `STS`) and provisional values (`QTY+Z18`). Substitute values are settled
 * like true ones and counted; a provisional value keeps the day provisional. Pure.
 * @module
 */
import { codeText, QUALITY, SUBSTITUTE_METHODS, SUBSTITUTE_REASONS } from "./mscons_codes.ts";
import type { SubstituteNote } from "./series.ts";

/** Substitute values of one method and reason, and the quarter-hours that hold them. */
export interface SubstituteKind {
  /** `STS+Z32` method code, e.g. `Z92`; `null` when the sender gave none. */
  method: string | null;
  /** The method in words, e.g. `interpolation`. */
  method_text: string;
  /** `STS+Z40` reason code, e.g. `Z75`; `null` when the sender gave none. */
  reason: string | null;
  /** The reason in words, e.g. `communication failure`. */
  reason_text: string;
  /** Quarter-hours of the day with at least one such value. */
  quarter_hours: number;
}

/** The quality of one actual (market locations or sums), summed over its parts. */
export interface QualitySummary {
  /** Quarter-hours holding at least one substitute value. */
  substitute_quarter_hours: number;
  /** Per method and reason, most quarter-hours first. */
  substitutes: SubstituteKind[];
  /** Quarter-hours holding at least one provisional value. */
  provisional_quarter_hours: number;
}

/** Collects the kinds of the values an actual is made of, quarter-hour by quarter-hour. */
export class QualityTally {
  readonly #n: number;
  readonly #substitute: Uint8Array;
  readonly #provisional: Uint8Array;
  readonly #kinds = new Map<string, { note: SubstituteNote; qh: Uint8Array }>();

  /** @param n quarter-hours of the day */
  constructor(n: number) {
    this.#n = n;
    this.#substitute = new Uint8Array(n);
    this.#provisional = new Uint8Array(n);
  }

  /** Adds one record's kinds (`quality` per quarter-hour, `substitutes` by index). */
  add(quality: Uint8Array | undefined, substitutes: Record<number, SubstituteNote> | undefined) {
    if (!quality) return;
    for (let i = 0; i < this.#n && i < quality.length; i++) {
      const q = quality[i];
      if (q === QUALITY.PROVISIONAL) this.#provisional[i] = 1;
      if (q !== QUALITY.SUBSTITUTE) continue;
      this.#substitute[i] = 1;
      const note = substitutes?.[i] ?? { method: null, reason: null };
      const key = `${note.method}|${note.reason}`;
      let kind = this.#kinds.get(key);
      if (!kind) this.#kinds.set(key, kind = { note, qh: new Uint8Array(this.#n) });
      kind.qh[i] = 1;
    }
  }

  /** What was collected. */
  summary(): QualitySummary {
    const count = (a: Uint8Array) => a.reduce((x, v) => x + v, 0);
    return {
      substitute_quarter_hours: count(this.#substitute),
      substitutes: [...this.#kinds.values()].map(({ note, qh }) => ({
        method: note.method,
        method_text: codeText(SUBSTITUTE_METHODS, note.method),
        reason: note.reason,
        reason_text: codeText(SUBSTITUTE_REASONS, note.reason),
        quarter_hours: count(qh),
      })).sort((a, b) => b.quarter_hours - a.quarter_hours),
      provisional_quarter_hours: count(this.#provisional),
    };
  }
}

/** No substitute or provisional value. */
export const PLAIN_QUALITY: QualitySummary = Object.freeze({
  substitute_quarter_hours: 0,
  substitutes: [],
  provisional_quarter_hours: 0,
}) as QualitySummary;
