/**
 * Reads the segments of a UN/EDIFACT interchange (ISO 9735) with the npm library `edifact`
 * (node-edifact, Apache-2.0): the service string advice `UNA` decides the separators, the decimal
 * mark and the release character; the syntax identifier of `UNB` the character set. The library's
 * optional validator is not used (it cost a third of the parse of a large interchange, for the one
 * check we took from it): a numeric value is read with {@link decimalNumber} and the decimal mark
 * the library read from `UNA` ({@link Syntax}).
 * @module
 */
// deno-lint-ignore-file no-explicit-any
import ParserModule from "edifact/parser.js";

const Parser = ParserModule as any;

/** What `UNA` (or its default) declared, as the library read it. */
export interface Syntax {
  /** The decimal mark, `.` or `,` (ISO 9735 default `.`). */
  decimalMark: string;
}

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

/**
 * Calls `onSegment` for every segment of `text`, in order, with the syntax `UNA` declared.
 * Line breaks between segments (after the terminator) are dropped first: many senders write one
 * segment per line, which ISO 9735 does not foresee.
 * @throws {EdifactSyntaxError} when the text is not EDIFACT or breaks its own `UNA` rules (an
 *   unreleased separator, a character outside the character set of `UNB`)
 */
export function readSegments(
  text: string,
  onSegment: (s: Segment, syntax: Syntax) => void,
): void {
  const parser = new Parser();
  let syntax: Syntax | undefined;
  let tag = "";
  let elements: string[][] = [];
  let components: string[] = [];
  let position = 0;
  let syntaxNext = false;
  parser.onopensegment = (name: string) => {
    // The library has read UNA (if any) before the first segment opens.
    syntax ??= { decimalMark: String.fromCharCode(parser._configuration.DM) };
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
  parser.onclosesegment = () => onSegment({ tag, elements, position }, syntax!);
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

/**
 * A numeric data value (ISO 9735 "n" representation: an optional minus, digits, at most one
 * decimal mark, written as `UNA` declares it) as a number; `undefined` when it is not one, e.g. a
 * decimal point in an interchange whose `UNA` declares the comma.
 */
export function decimalNumber(raw: string, decimalMark: string): number | undefined {
  const mark = raw.indexOf(decimalMark);
  let digits = 0;
  for (let i = raw.charCodeAt(0) === 45 ? 1 : 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if (i !== mark) return undefined;
  }
  if (digits === 0) return undefined;
  return Number(mark < 0 || decimalMark === "." ? raw : raw.replace(decimalMark, "."));
}
