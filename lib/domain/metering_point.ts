/**
 * MaBiS metering points (docs/actuals.md, "Balancing-group sums"): a balancing-group sum time
 * series is named by the designation of its metering point (Zählpunktbezeichnung), 33 characters:
 * the country `DE`, the network operator's 6-digit number, a 5-digit postcode and 20 letters or
 * digits (EDI@Energy MSCONS AHB FV2504, Prüfidentifikator 13003, `LOC+172` condition [951]
 * "Format: Zählpunktbezeichnung").
 * @module
 */

/** A MaBiS metering point designation. */
export const METERING_POINT = /^DE\d{11}[0-9A-Z]{20}$/;

/** Why `id` is not a metering point designation, in words; `undefined` when it is one. */
export function meteringPointProblem(id: string): string | undefined {
  if (METERING_POINT.test(id)) return undefined;
  return `${id} is not a MaBiS metering point designation (Zählpunktbezeichnung: 33 characters, DE, 11 digits, 20 letters or digits; got ${id.length} characters)`;
}
