/**
 * Numbers as the German TSOs publish their price files (docs/settlement.md, "Imbalance prices"):
 * `1.234,56` (dot for thousands, comma for decimals, may be negative), and `N.A.` / `N.E.` (not
 * available, not determined) where no value is known. Pure.
 * @module
 */

const GERMAN_NUMBER = /^-?(\d{1,3}(\.\d{3})+|\d+)(,\d+)?$/;

/** Texts that say "no value known". */
const UNKNOWN = new Set(["N.A.", "N.A", "n.a.", "N.E.", "N.E", "n.e."]);

/** A German number (`1.234,56`, `-4,83`) or `null` for `N.A.`/`N.E.`; `undefined` when neither. */
export function germanNumber(text: string): number | null | undefined {
  const t = text.trim();
  if (UNKNOWN.has(t)) return null;
  if (!GERMAN_NUMBER.test(t)) return undefined;
  return Number(t.replace(/\./g, "").replace(",", "."));
}
