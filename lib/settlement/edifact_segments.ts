/**
 * Reads the segments of a UN/EDIFACT interchange (ISO 9735) with the npm library `edifact`
 * (node-edifact, Apache-2.0): the service string advice `UNA` decides the separators, the decimal
 * mark and the release character; the syntax identifier of `UNB` the character set. The quantity
 * of `QTY` (C186, component 6060) is declared numeric, so the library turns the decimal mark into
 * a point and refuses a number written with any other mark.
 * @module
 */
// deno-lint-ignore-file no-explicit-any
import ParserModule from "edifact/parser.js";
import ValidatorModule from "edifact/validator.js";

const Parser = ParserModule as any;
const Validator = ValidatorModule as any;

/** One segment: its tag, its elements (each a list of components) and its 1-based position. */
export interface Segment {
  tag: string;
  elements: string[][];
  /** Position in the interchange, 1 = the first segment after `UNA`. */
  position: number;
}

/** Why the interchange could not be read: the library's sentence and the segment it stopped in. */
export class EdifactSyntaxError extends Error {
  /** 1-based position of the segment being read, and its tag (empty before the first). */
  readonly position: number;
  readonly tag: string;
  constructor(message: string, position: number, tag: string) {
    super(message);
    this.name = "EdifactSyntaxError";
    this.position = position;
    this.tag = tag;
  }
}

/** The definitions we validate: only `QTY` (its quantity numeric, unit up to 8 characters). */
const DEFINITIONS = {
  QTY: { requires: 1, elements: ["C186"] },
  C186: { requires: 2, components: ["an..3", "n..35", "an..8"] },
};

/**
 * Calls `onSegment` for every segment of `text`, in order.
 * Line breaks between segments (after the terminator) are dropped first: many senders write one
 * segment per line, which ISO 9735 does not foresee.
 * @throws {EdifactSyntaxError} when the text is not EDIFACT or breaks its own `UNA` rules (a
 *   decimal mark other than the one `UNA` declares, an unreleased separator)
 */
export function readSegments(text: string, onSegment: (s: Segment) => void): void {
  const validator = new Validator();
  validator.define(DEFINITIONS);
  const parser = new Parser(validator);
  let tag = "";
  let elements: string[][] = [];
  let components: string[] = [];
  let position = 0;
  let syntaxNext = false;
  parser.onopensegment = (name: string) => {
    tag = name;
    elements = [];
    position++;
    syntaxNext = name === "UNB";
  };
  parser.onelement = () => {
    elements.push(components = []);
  };
  parser.oncomponent = function (this: any, value: string) {
    if (syntaxNext) {
      // UNB's first component names the character set (UNOA, UNOC, …).
      this.encoding(value);
      syntaxNext = false;
    }
    components.push(value);
  };
  parser.onclosesegment = () => onSegment({ tag, elements, position });
  try {
    parser.write(stripLineBreaks(text));
    parser.end();
  } catch (err) {
    throw new EdifactSyntaxError((err as Error).message, position, tag);
  }
}

/** The text without CR/LF directly after a segment terminator (UNA's sixth character or `'`). */
function stripLineBreaks(text: string): string {
  if (text.indexOf("\n") < 0 && text.indexOf("\r") < 0 && text.charCodeAt(0) !== 0xfeff) {
    return text.trimEnd(); // nothing to drop (a scan, not a copy of the text)
  }
  const terminator = text.startsWith("UNA") && text.length >= 9 ? text[8] : "'";
  const t = terminator.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`${t}[\\r\\n]+`, "g"), terminator).replace(/^\uFEFF/, "")
    .trimEnd();
}
