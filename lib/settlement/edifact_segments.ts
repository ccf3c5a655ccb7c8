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

/**
 * One segment as the reader hands it to `onSegment`: its tag, 1-based position and components. The
 * same object is used for the next segment (two million segments of a large interchange would
 * otherwise be six million short-lived arrays): read what you need during the call.
 */
export class Segment {
  /** Segment tag, e.g. `QTY`. */
  tag = "";
  /** Position in the interchange, 1 = the first segment after `UNA`. */
  position = 0;
  /** Number of data elements. */
  length = 0;
  /** Components per element (written by index, never shortened: see `counts`). */
  readonly #slots: string[][] = [];
  /** Components of each element in this segment. */
  readonly #counts: number[] = [];

  /** Component `c` of element `e` (both 0-based); `undefined` when this segment has none there. */
  at(e: number, c = 0): string | undefined {
    return e < this.length && c < this.#counts[e] ? this.#slots[e][c] : undefined;
  }

  /** The segment as EDIFACT text without release characters, e.g. `QTY+220:1.5:KWH`. */
  text(): string {
    const elements = Array.from(
      { length: this.length },
      (_, e) => this.#slots[e].slice(0, this.#counts[e]).join(":"),
    );
    return elements.length ? `${this.tag}+${elements.join("+")}` : this.tag;
  }

  /** Starts segment `tag` (for the reader). */
  open(tag: string): void {
    this.tag = tag;
    this.length = 0;
    this.position++;
  }

  /** Starts the next element (for the reader). */
  element(): void {
    this.#slots[this.length] ??= [];
    this.#counts[this.length++] = 0;
  }

  /** Adds a component to the current element (for the reader). */
  component(value: string): void {
    const e = this.length - 1;
    this.#slots[e][this.#counts[e]++] = value;
  }
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
 * Calls `onSegment` for every segment of `text`, in order, with the syntax `UNA` declared (the
 * {@link Segment} object is reused for the next one).
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
  const segment = new Segment();
  let syntaxNext = false;
  parser.onopensegment = (name: string) => {
    // The library has read UNA (if any) before the first segment opens.
    syntax ??= { decimalMark: String.fromCharCode(parser._configuration.DM) };
    segment.open(name);
    syntaxNext = name === "UNB";
  };
  parser.onelement = () => segment.element();
  parser.oncomponent = function (this: any, value: string) {
    if (syntaxNext) {
      // UNB's first component names the character set (UNOA, UNOC, …).
      this.encoding(value);
      syntaxNext = false;
    }
    segment.component(value);
  };
  parser.onclosesegment = () => onSegment(segment, syntax!);
  try {
    parser.write(stripLineBreaks(text));
    parser.end();
  } catch (err) {
    throw new EdifactSyntaxError((err as Error).message, segment.position, segment.tag);
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
