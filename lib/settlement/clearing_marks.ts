/**
 * The operator's marks on the clearing lists, and when the sums they are made on arrived
 * (docs/settlement.md, "Checking the settlement data"):
 * - a mark per month and control area: `checked` (the differences are explained) or `objected`
 *   (objected to the network operator, StromNZV § 4 (4)), with a note, who and when, and the
 *   fingerprint of the list it was made on (`KEYS.clearingMark`);
 * - per month, when balancing-group sums of each control area last arrived (`KEYS.clearingMonth`):
 *   a list is waiting for the operator while its area's sums arrived after its last mark (or it
 *   has none) — the console's attention item, read cheaply without computing the list.
 * This module owns both keys. Month-scoped, a few records a year: kept.
 * @module
 */
import { KEYS } from "../store/keys.ts";

/** One mark. */
export interface ClearingMark {
  status: "checked" | "objected";
  /** The operator's words, e.g. whom they objected to and why. */
  note: string;
  /** The caller who marked it. */
  by: string;
  /** ISO-8601 UTC instant of the mark. */
  at: string;
  /** The fingerprint of the list the mark was made on. */
  fingerprint: string;
}

/** When sums of one month last arrived, per control area EIC (ISO-8601 UTC). */
export interface ClearingMonth {
  month: string;
  sums_at: Record<string, string>;
}

/** A month and area whose clearing list waits for the operator. */
export interface OpenClearing {
  month: string;
  control_area: string;
  /** When its sums last arrived. */
  sums_at: string;
  /** The mark made before they did, if any. */
  mark: ClearingMark | null;
}

/** Stores a mark (a later one replaces it). */
export async function markClearing(
  kv: Deno.Kv,
  month: string,
  area: string,
  mark: ClearingMark,
): Promise<void> {
  await kv.set(KEYS.clearingMark(month, area), mark);
}

/** The marks of a month, by control area. */
export async function marksOfMonth(kv: Deno.Kv, month: string): Promise<Map<string, ClearingMark>> {
  const out = new Map<string, ClearingMark>();
  for await (const e of kv.list<ClearingMark>(KEYS.clearingMarksOfMonth(month))) {
    out.set(e.key[2] as string, e.value);
  }
  return out;
}

/**
 * Notes that sums of `areas` arrived at `at` for days of `months` (`YYYY-MM`), so that their
 * clearing lists wait for the operator again.
 */
export async function noteSums(
  kv: Deno.Kv,
  months: ReadonlyMap<string, ReadonlySet<string>>,
  at: string,
): Promise<void> {
  for (const [month, areas] of months) {
    if (areas.size === 0) continue;
    for (let attempt = 0; attempt < 10; attempt++) {
      const e = await kv.get<ClearingMonth>(KEYS.clearingMonth(month));
      const rec: ClearingMonth = { month, sums_at: { ...e.value?.sums_at } };
      for (const a of areas) rec.sums_at[a] = at;
      if ((await kv.atomic().check(e).set(e.key, rec).commit()).ok) break;
    }
  }
}

/**
 * Every month and area whose sums arrived after its last mark (or that has none), from `since`
 * (`YYYY-MM`, e.g. the first month still in the correction phase) on, oldest first.
 */
export async function openClearings(kv: Deno.Kv, since: string): Promise<OpenClearing[]> {
  const marks = new Map<string, ClearingMark>();
  for await (const e of kv.list<ClearingMark>(KEYS.clearingMarks)) {
    marks.set(`${String(e.key[1])}|${String(e.key[2])}`, e.value);
  }
  const out: OpenClearing[] = [];
  for await (const e of kv.list<ClearingMonth>(KEYS.clearingMonths)) {
    const m = e.value;
    if (m.month < since) continue;
    for (const [area, at] of Object.entries(m.sums_at).sort()) {
      const mark = marks.get(`${m.month}|${area}`) ?? null;
      if (mark && mark.at >= at) continue;
      out.push({ month: m.month, control_area: area, sums_at: at, mark });
    }
  }
  return out;
}
