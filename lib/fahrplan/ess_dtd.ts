/**
 * Optional check of ESS 2.3 documents against the TSOs' DTDs (docs/fahrplan.md, "Schema
 * validation"). No public copy of the ESS DTDs exists: the German TSOs hand them out in their
 * Fahrplan download area. Without them the structural rules of `./document.ts` stand alone; where
 * an operator has the package, `ESS_DTD_DIR` names its folder and every ESS document this service
 * writes is checked against `schedule-xml.dtd` (`ScheduleMessage`) or `request-xml.dtd`
 * (`StatusRequest`) before it leaves, with libxml2 (npm libxml2-wasm).
 *
 * The document is parsed without loading the DTD its DOCTYPE names (the DTD given here is the one
 * checked against), without external entities and without network access.
 * @module
 */
import { DtdValidator, ParseOption, XmlDocument, XmlDtd } from "libxml2-wasm";
import { problemsOf } from "./cim_schema.ts";
import { essDtdDir } from "./ess_dtd_dir.ts";

/** The DTD file of each ESS root element this service writes. */
export const ESS_DTD_FILES: Readonly<Record<string, string>> = {
  ScheduleMessage: "schedule-xml.dtd",
  StatusRequest: "request-xml.dtd",
};

/** Validators by `folder/file`, loaded at first use. */
const validators = new Map<string, DtdValidator>();

function validatorOf(dir: string, file: string): DtdValidator {
  const known = validators.get(`${dir}/${file}`);
  if (known) return known;
  const text = Deno.readTextFileSync(`${dir}/${file}`);
  const validator = new DtdValidator(XmlDtd.fromString(text));
  validators.set(`${dir}/${file}`, validator);
  return validator;
}

/**
 * The findings of checking an ESS document against its DTD, as sentences with their lines; empty
 * when it is valid or no `ESS_DTD_DIR` is set.
 * @throws {Deno.errors.NotFound} when the DTD file is missing from `ESS_DTD_DIR`
 */
export function checkEss(xml: string): { dtd: string | null; problems: string[] } {
  const dir = essDtdDir();
  if (dir === null) return { dtd: null, problems: [] };
  const lines = (err: unknown) =>
    problemsOf(err).map((p) => p.line ? `line ${p.line}: ${p.message}` : p.message);
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(xml, { option: ParseOption.XML_PARSE_NONET });
  } catch (err) {
    return { dtd: null, problems: [`the XML is not well-formed: ${lines(err)[0]}`] };
  }
  try {
    const file = ESS_DTD_FILES[doc.root.name];
    if (!file) {
      return { dtd: null, problems: [`the root element <${doc.root.name}> has no ESS DTD here`] };
    }
    try {
      validatorOf(dir, file).validate(doc);
      return { dtd: file, problems: [] };
    } catch (err) {
      return { dtd: file, problems: lines(err) };
    }
  } finally {
    doc.dispose();
  }
}
