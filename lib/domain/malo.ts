/**
 * Market location identifiers (MaLo-ID, BDEW "Marktlokations-ID"): 11 digits, the first 1–9,
 * the last a check digit over the first ten: odd positions summed plus twice the even positions
 * summed, check = (10 − sum mod 10) mod 10. This is not Luhn (no digit sums of the doubles).
 *
 * @example
 * isValidMaloId("51238696781"); // true
 * isValidMaloId("41373559240"); // false (check digit should be 1)
 * @module
 */

/** Check digit for the first ten digits of a MaLo-ID. */
export function maloCheckDigit(first10: string): number {
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const d = first10.charCodeAt(i) - 48;
    sum += i % 2 === 0 ? d : 2 * d; // positions 1,3,5… are odd (index 0,2,4…)
  }
  return (10 - (sum % 10)) % 10;
}

/** The form of a MaLo-ID: 11 digits, the first 1–9 (the check digit besides: {@link maloProblem}). */
export const MALO_ID_FORMAT = /^[1-9]\d{10}$/;

/** Why a MaLo-ID is not valid, or `undefined` when it is. */
export function maloProblem(id: string): string | undefined {
  if (!MALO_ID_FORMAT.test(id)) return "a MaLo-ID has 11 digits and does not start with 0";
  const want = maloCheckDigit(id.slice(0, 10));
  if (want !== id.charCodeAt(10) - 48) return `check digit should be ${want}, not ${id[10]}`;
  return undefined;
}

/** True for a well-formed MaLo-ID with the right check digit. */
export function isValidMaloId(id: string): boolean {
  return maloProblem(id) === undefined;
}
