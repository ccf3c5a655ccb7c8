/**
 * The one way Fahrplan XML is written (docs/fahrplan.md): fast-xml-parser's `XMLBuilder` from an
 * element tree (attributes `@_name`, text `#text`), indented by two spaces, empty nodes left out,
 * after the XML declaration `<?xml version="1.0" encoding="UTF-8"?>`. Never string concatenation.
 * @module
 */
import { XMLBuilder } from "fast-xml-parser";

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  textNodeName: "#text",
  format: true,
  indentBy: "  ",
  suppressEmptyNode: true,
});

/**
 * The document `{ [root]: tree }` as XML text with the declaration; `doctype` (an ESS `<!DOCTYPE
 * …>` line) goes right after the declaration, which the builder cannot write itself.
 */
export function buildXml(root: Record<string, unknown>, doctype?: string): string {
  const xml = builder.build({
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    ...root,
  }) as string;
  return doctype ? xml.replace(/^(<\?xml[^>]*\?>\n?)/, `$1${doctype}\n`) : xml;
}
