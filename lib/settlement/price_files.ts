/**
 * The price files the service takes (docs/settlement.md, "Imbalance prices"), told apart by their
 * header: the reBAP as the TSOs' table download writes it (`./rebap.ts`), and the data service's
 * reBAP, AEP estimate and ID AEP (`./datenservice.ts`). A header we do not know is refused in
 * words, listing the ones we take. Pure.
 * @module
 */
import { DATENSERVICE_HEADERS, datenserviceLayout, parseDatenservice } from "./datenservice.ts";
import { IssueList } from "./errors.ts";
import { parseRebap, type PricePoint, REBAP_HEADER } from "./rebap.ts";

/** A price-file layout. */
export type PriceLayout = "rebap" | "rebap_datenservice" | "aep_estimate" | "id_aep";

/** What a layout's prices are: the imbalance price (reBAP or its estimate) or the intraday index. */
export const PRICE_KIND: Readonly<Record<PriceLayout, "rebap" | "aep_estimate" | "id_aep">> = {
  rebap: "rebap",
  rebap_datenservice: "rebap",
  aep_estimate: "aep_estimate",
  id_aep: "id_aep",
};

/** A price file read: its layout and one point per row (EUR/MWh; `null` = not known). */
export interface PriceFile {
  layout: PriceLayout;
  points: PricePoint[];
}

/** The first line of `text`, without a byte-order mark. */
const firstLine = (text: string) => text.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0].trim();

/** The layout of a price file by its header; `null` when it is none we take. */
export function priceLayout(text: string): PriceLayout | null {
  const header = firstLine(text);
  if (header.split(";").map((h) => h.trim()).join(";") === REBAP_HEADER.join(";")) return "rebap";
  return datenserviceLayout(header);
}

/**
 * Reads a price file of any layout we take.
 * @throws {import("./errors.ts").SettlementInputRefused} a header we do not know (the layouts we
 *   take are named), or bad rows (each named by its line)
 */
export function readPriceFile(text: string): PriceFile {
  const layout = priceLayout(text);
  if (layout === "rebap") return { layout, points: parseRebap(text) };
  if (layout) return { layout, points: parseDatenservice(text, layout) };
  const issues = new IssueList();
  issues.add(
    ["body", "line 1"],
    `line 1: not a price file we know (${firstLine(text).slice(0, 120)}); we take the reBAP (${
      REBAP_HEADER.join(";")
    }), the data service's reBAP (${DATENSERVICE_HEADERS.rebap_datenservice}), its AEP estimate (${DATENSERVICE_HEADERS.aep_estimate}) and ID AEP (${DATENSERVICE_HEADERS.id_aep}), prices in EUR/MWh`,
    "value_error.rebap",
  );
  issues.throwIfAny();
  throw new Error("unreachable");
}
