/**
 * Test and demo data: valid MaLo-IDs and market-location bodies.
 * @module
 */
import { maloCheckDigit } from "../../lib/domain/malo.ts";

/** The `n`-th valid MaLo-ID of a deterministic series (first digit 5). */
export function maloId(n: number): string {
  const first10 = `5${String(n).padStart(9, "0")}`;
  return `${first10}${maloCheckDigit(first10)}`;
}

/** EICs of the four German control areas. */
export const AREAS = {
  amprion: "10YDE-RWENET---I",
  tennet: "10YDE-EON------1",
  transnet: "10YDE-ENBW-----N",
  hertz: "10YDE-VE-------2",
} as const;
