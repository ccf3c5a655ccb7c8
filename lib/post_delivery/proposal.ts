/**
 * The proposal of a post-delivery correction (docs/post-delivery.md, "Proposal"), pure: the
 * schedule set to the actual for every quarter-hour whose actual is known (3 decimals, the
 * documents' resolution), the value of the version the TSO has elsewhere; per quarter-hour the
 * imbalance the change moves to the counterparty, `(proposed − standing) × 0.25 h` in MWh, and its
 * value at the reBAP of its direction (the settlement's price, docs/settlement.md), in EUR.
 * Also what an explicit correction changes ({@link correctionEffect}).
 * @module
 */
import type { CorrectionProposal } from "../wire/post_delivery.ts";
import type { AreaSettlement } from "../wire/settlement.ts";

const r3 = (x: number) => Math.round(x * 1000) / 1000 + 0;
const r6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;
const r4 = (x: number) => Math.round(x * 1e4) / 1e4 + 0;
const r2 = (x: number) => Math.round(x * 100) / 100 + 0;

/** What a corrected schedule changes against the version the TSO has. */
export interface CorrectionEffect {
  /** Quarter-hours whose quantity changes (3 decimals). */
  changed: number;
  /** (corrected − standing) × 0.25 h per quarter-hour, MWh (6 decimals). */
  moved: number[];
  /** Σ positive moved, MWh. */
  short: number;
  /** Σ |negative moved|, MWh. */
  long: number;
}

/**
 * What `corrected` changes against `standing` (both MW per quarter-hour, the same length).
 */
export function correctionEffect(
  standing: readonly number[],
  corrected: readonly number[],
): CorrectionEffect {
  let changed = 0, short = 0, long = 0;
  const moved = corrected.map((v, i) => {
    const d = r3(v) - r3(standing[i] ?? 0);
    if (d !== 0) changed++;
    const mwh = d * 0.25;
    if (mwh > 0) short += mwh;
    else long -= mwh;
    return r6(mwh);
  });
  return { changed, moved, short: r6(short), long: r6(long) };
}

/**
 * The proposal for one area from its settlement (`schedule_mw` there is the version the TSO
 * has) and that version's quantities.
 * @param standing the version the TSO has: its number and MW per quarter-hour
 */
export function proposalOf(
  area: Pick<AreaSettlement, "actual_mw" | "price_eur_mwh">,
  standing: { version: number; quantities: readonly number[] },
): CorrectionProposal {
  const base = standing.quantities;
  const schedule = base.map((v, i) => {
    const a = area.actual_mw[i];
    return a === null || a === undefined ? r3(v) : r3(a);
  });
  const effect = correctionEffect(base, schedule);
  let total = 0, priced = 0, unpriced = 0;
  const value = effect.moved.map((m, i) => {
    if (area.actual_mw[i] === null || area.actual_mw[i] === undefined) return null;
    const price = area.price_eur_mwh[i];
    if (price === null || price === undefined) {
      if (m !== 0) unpriced++;
      return null;
    }
    if (m !== 0) priced++;
    total += m * price;
    return r4(m * price);
  });
  return {
    standing_version: standing.version,
    schedule_mw: schedule,
    known_quarter_hours: area.actual_mw.filter((a) => a !== null).length,
    changed_quarter_hours: effect.changed,
    moved_mwh: effect.moved.map((m, i) => area.actual_mw[i] === null ? null : m),
    moved_short_mwh: effect.short,
    moved_long_mwh: effect.long,
    value_eur: value,
    value_eur_total: priced > 0 ? r2(total) : null,
    unpriced_quarter_hours: unpriced,
  };
}
