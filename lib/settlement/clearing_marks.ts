/**
 * The operator's marks on the clearing lists (docs/settlement.md, "Checking the settlement data"):
 * per month and control area `checked` (the differences are explained) or `objected` (objected to
 * the network operator, StromNZV § 4 (4)), with a note, who and when, and the fingerprint of the
 * list it was made on (`KEYS.clearingMark`, owned here). Month-scoped, a few records a year: kept.
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
