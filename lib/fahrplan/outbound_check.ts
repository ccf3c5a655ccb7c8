/**
 * The last check before a Fahrplan document leaves (docs/fahrplan.md, "Schema validation"): a CIM
 * document against ENTSO-E's XSD of its namespace (`./cim_schema.ts`), an ESS document against the
 * TSOs' DTD where `ESS_DTD_DIR` is set (`./ess_dtd.ts`). A document that fails is never sent.
 * @module
 */
import { DocumentSchemaInvalid } from "../domain/errors.ts";
import { checkCim, describeProblems } from "./cim_schema.ts";
import { checkEss } from "./ess_dtd.ts";

/**
 * Refuses a document that its standard's schema refuses.
 * @param xml the document as it would leave
 * @param format `cim` (always checked) or `ess` (checked where `ESS_DTD_DIR` is set)
 * @param name names the document in the error, e.g. its BDEW file name
 * @returns `xml`, unchanged
 * @throws {DocumentSchemaInvalid} naming the document, the element and the validator's finding
 */
export function assertValidOutbound(xml: string, format: "ess" | "cim", name: string): string {
  if (format === "cim") {
    const check = checkCim(xml);
    if (check.problems.length) throw new DocumentSchemaInvalid(name, describeProblems(check));
    return xml;
  }
  const ess = checkEss(xml);
  if (ess.problems.length) {
    const shown = ess.problems.slice(0, 3).join("; ");
    const more = ess.problems.length > 3 ? ` (and ${ess.problems.length - 3} more)` : "";
    throw new DocumentSchemaInvalid(name, `against the ESS DTD ${ess.dtd}: ${shown}${more}`);
  }
  return xml;
}
