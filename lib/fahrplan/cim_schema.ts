/**
 * Checks a CIM document against ENTSO-E's own XML schema of its namespace (docs/fahrplan.md,
 * "Schema validation"): the schemas ship unmodified in `data/xsd/entsoe-cim/` (ENTSO-E's CIM XSD
 * package v2026, code lists v95; data/xsd/SOURCE.md) and are compiled by libxml2 (the npm package
 * libxml2-wasm: libxml2 compiled to WebAssembly), once per namespace and process, at first use.
 *
 * The schemas import their code lists by the relative name `urn-entsoe-eu-wgedi-codelists.xsd`;
 * they are served to libxml2 from memory by an input provider under the private scheme
 * {@link SCHEMA_SCHEME}, never by editing a schema and never from the network or the file system.
 *
 * The parser is at the edge of the service, so a checked document is parsed without loading a DTD
 * or an external entity (no `XML_PARSE_DTDLOAD`, `XML_PARSE_NOENT`; `XML_PARSE_NONET`), libxml2
 * bounds entity expansion (its amplification limit), and a document that declares a DTD at all is
 * refused before it is parsed: no CIM document has one.
 * @module
 */
import {
  ParseOption,
  XmlBufferInputProvider,
  XmlDocument,
  xmlRegisterInputProvider,
  XsdValidator,
} from "libxml2-wasm";

/** Private URL scheme under which the schema files are served to libxml2. */
export const SCHEMA_SCHEME = "entsoe-cim-xsd:/";

/** The schema folder of this repository (unmodified ENTSO-E files). */
export const SCHEMA_DIR = new URL("../../data/xsd/entsoe-cim/", import.meta.url);

/** What a CIM namespace is: its document, its kind and the schema file that defines it. */
export interface CimSchemaEntry {
  /** Root element, e.g. `Schedule_MarketDocument`. */
  root: string;
  kind: "schedule" | "ack" | "cnf" | "ano" | "srq";
  /** File name in {@link SCHEMA_DIR}. */
  file: string;
}

const NS = "urn:iec62325.351:tc57wg16:";

function entries(
  part: string,
  doc: string,
  root: string,
  kind: CimSchemaEntry["kind"],
  versions: string[],
): [string, CimSchemaEntry][] {
  return versions.map((v) => [
    `${NS}${part}:${doc}:${v}`,
    { root, kind, file: `iec62325-${part}-${fileStem(doc)}_v${v.replace(":", "_")}.xsd` },
  ]);
}

function fileStem(doc: string): string {
  return doc.replace(/document$/, "");
}

/**
 * Every CIM namespace this service has a schema for (IEC 62325-451-1, -2, -5), namespace → entry:
 * schedule 5:0–5:2, acknowledgement 7:0, 8:0, 8:1, 9:0, confirmation and anomaly report
 * 5:0–5:3, status request 4:0–4:1. A namespace not listed is refused, never guessed.
 */
export const CIM_SCHEMAS: ReadonlyMap<string, CimSchemaEntry> = new Map([
  ...entries("451-2", "scheduledocument", "Schedule_MarketDocument", "schedule", [
    "5:0",
    "5:1",
    "5:2",
  ]),
  ...entries("451-1", "acknowledgementdocument", "Acknowledgement_MarketDocument", "ack", [
    "7:0",
    "8:0",
    "8:1",
    "9:0",
  ]),
  ...entries("451-2", "confirmationdocument", "Confirmation_MarketDocument", "cnf", [
    "5:0",
    "5:1",
    "5:2",
    "5:3",
  ]),
  ...entries("451-2", "anomalydocument", "AnomalyReport_MarketDocument", "ano", [
    "5:0",
    "5:1",
    "5:2",
    "5:3",
  ]),
  ...entries("451-5", "statusrequestdocument", "StatusRequest_MarketDocument", "srq", [
    "4:0",
    "4:1",
  ]),
]);

/** One finding of the check, in words. */
export interface SchemaProblem {
  /** Line in the document (1-based); 0 when the finding is about the whole document. */
  line: number;
  /** The element the finding is about (local name, without namespace), when libxml2 names one. */
  element: string | null;
  /** The finding as a sentence, namespaces left out, e.g. `element measure_Unit.name: This
   * element is not expected. Expected is one of (…, measurement_Unit.name).` */
  message: string;
}

/** The outcome of {@link checkCim}. */
export interface CimCheck {
  /** Namespace of the root element; `null` when the text did not parse. */
  namespace: string | null;
  /** Root element's local name; `null` when the text did not parse. */
  root: string | null;
  /** The schema file checked against; `null` when none applies. */
  schema: string | null;
  /** Empty when the document is valid. */
  problems: SchemaProblem[];
}

let provider: XmlBufferInputProvider | undefined;
const validators = new Map<string, XsdValidator>();

/** Serves every file of {@link SCHEMA_DIR} to libxml2 under {@link SCHEMA_SCHEME}, once. */
function ensureProvider(): void {
  if (provider) return;
  const files: Record<string, Uint8Array> = {};
  for (const entry of Deno.readDirSync(SCHEMA_DIR)) {
    if (!entry.isFile || !entry.name.endsWith(".xsd")) continue;
    files[SCHEMA_SCHEME + entry.name] = Deno.readFileSync(new URL(entry.name, SCHEMA_DIR));
  }
  provider = new XmlBufferInputProvider(files);
  xmlRegisterInputProvider(provider);
}

/**
 * The compiled validator of a schema file, compiled at its first use (30–300 ms) and kept.
 * @throws {Error} when the schema itself does not compile (a service fault, not the document's)
 */
function validatorOf(file: string): XsdValidator {
  const known = validators.get(file);
  if (known) return known;
  ensureProvider();
  const url = SCHEMA_SCHEME + file;
  const bytes = Deno.readFileSync(new URL(file, SCHEMA_DIR));
  const xsd = XmlDocument.fromBuffer(bytes, { url, option: ParseOption.XML_PARSE_NONET });
  try {
    const validator = XsdValidator.fromDoc(xsd);
    validators.set(file, validator);
    return validator;
  } catch (err) {
    throw new Error(
      `ENTSO-E's schema ${file} could not be compiled (is data/xsd/entsoe-cim/ complete?): ${
        describeProblems({ namespace: null, root: null, schema: null, problems: problemsOf(err) })
      }`,
      { cause: err },
    );
  } finally {
    xsd.dispose();
  }
}

/** libxml2's error details (of a parse, an XSD or a DTD check), as {@link SchemaProblem}s without namespaces. */
export function problemsOf(err: unknown): SchemaProblem[] {
  const details = (err as { details?: { message: string; line: number }[] }).details;
  if (!details?.length) {
    return [{ line: 0, element: null, message: words((err as Error).message ?? String(err)) }];
  }
  const seen = new Set<string>();
  const out: SchemaProblem[] = [];
  for (const d of details) {
    const message = words(d.message);
    const key = `${d.line}:${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const element = /^Element '(?:\{[^}]*\})?([^']+)'/.exec(d.message.trim())?.[1] ?? null;
    out.push({ line: d.line, element, message });
  }
  return out;
}

/** libxml2's message as a sentence: `{namespace}` prefixes left out, one line, no trailing space. */
function words(message: string): string {
  return message
    .replace(/\{[^}]*\}/g, "")
    .replace(/^Element '([^']+)'/, "element $1")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/\.$/, "");
}

const PARSE_OPTIONS = ParseOption.XML_PARSE_NONET;

/**
 * Checks one CIM document against the schema of its root element's namespace. Never throws for
 * the document's own faults: text that is not well-formed XML, a document that declares a DTD, a
 * namespace without a schema here, a root element other than the namespace's document and every
 * schema violation come back as {@link SchemaProblem}s.
 * @param xml the document's text (a leading byte-order mark is ignored)
 */
export function checkCim(xml: string): CimCheck {
  const body = xml.replace(/^\uFEFF/, "");
  const none = (message: string, line = 0): CimCheck => ({
    namespace: null,
    root: null,
    schema: null,
    problems: [{ line, element: null, message }],
  });
  if (/<!DOCTYPE/i.test(body)) {
    return none(
      "the document declares a DTD (<!DOCTYPE …>); CIM documents have none, and this service " +
        "loads no DTD or external entity from a document",
    );
  }
  let doc: XmlDocument;
  try {
    doc = XmlDocument.fromString(body, { option: PARSE_OPTIONS });
  } catch (err) {
    const [first] = problemsOf(err);
    return none(`the XML is not well-formed: ${first.message}`, first.line);
  }
  try {
    const root = doc.root;
    const namespace = root.namespaceUri || null;
    const name = root.name.includes(":") ? root.name.split(":").pop()! : root.name;
    const entry = namespace ? CIM_SCHEMAS.get(namespace) : undefined;
    if (!entry) {
      return {
        namespace,
        root: name,
        schema: null,
        problems: [{
          line: 0,
          element: name,
          message: `the namespace ${namespace ?? "(none)"} of <${name}> is not one this service ` +
            `has an ENTSO-E schema for (${knownVersions(name)})`,
        }],
      };
    }
    if (entry.root !== name) {
      return {
        namespace,
        root: name,
        schema: entry.file,
        problems: [{
          line: 0,
          element: name,
          message: `the root element is <${name}>; namespace ${namespace} defines <${entry.root}>`,
        }],
      };
    }
    const validator = validatorOf(entry.file);
    try {
      validator.validate(doc);
      return { namespace, root: name, schema: entry.file, problems: [] };
    } catch (err) {
      return { namespace, root: name, schema: entry.file, problems: problemsOf(err) };
    }
  } finally {
    doc.dispose();
  }
}

/** The namespace versions known for a root element, for a refusal's sentence. */
function knownVersions(root: string): string {
  const versions = [...CIM_SCHEMAS].filter(([, e]) => e.root === root).map(([ns]) =>
    ns.split(":").slice(-2).join(".")
  );
  return versions.length
    ? `known versions of ${root}: ${versions.join(", ")}`
    : `no schema here has a root element <${root}>`;
}

/**
 * The problems of a check as one sentence: the schema, then at most `max` findings with their
 * lines, then how many more.
 */
export function describeProblems(check: CimCheck, max = 3): string {
  const shown = check.problems.slice(0, max).map((p) =>
    p.line ? `line ${p.line}: ${p.message}` : p.message
  );
  const more = check.problems.length - shown.length;
  const against = check.schema ? `against ENTSO-E's schema ${check.schema}: ` : "";
  return `${against}${shown.join("; ")}${more > 0 ? ` (and ${more} more)` : ""}`;
}
