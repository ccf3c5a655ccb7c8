/**
 * Reads a large MSCONS interchange on several cores (docs/settlement.md, "Cost"): a DSO sends one
 * message (`UNH` … `UNT`) per market location, and the messages of an interchange are independent,
 * so the interchange is cut between messages into one part per core, each read by
 * {@link parseMscons} in a worker of its own (`./mscons_worker.ts`), and the parts' series are
 * joined in order, their `where` shifted to the segment positions of the whole. This thread only
 * cuts, sends and joins: it stays free for requests while a DSO's interchange is read.
 *
 * Only the good path runs in parts. When any part is refused, or a worker fails, the whole
 * interchange is read again in one piece: its refusal (with the exact message, segment and
 * location) is the one told, and a cut in the wrong place can never pass unnoticed — every part is
 * read by the EDIFACT library, which refuses a part that does not start or end on a segment.
 * @module
 */
import { readSegments } from "./edifact_segments.ts";
import { decodeInterchange, interchangeEncoding } from "./edifact_text.ts";
import { type MsconsInterchange, parseMscons, shiftWhere } from "./mscons.ts";
import type { PartAnswer, PartJob } from "./mscons_worker.ts";

/** Below this many bytes (about 550 location-days) one piece is faster than starting workers. */
export const PARALLEL_MIN_BYTES = 4 * 1024 * 1024;

/** Options, for tests: the size from which to cut and the number of parts. */
export interface ParallelOptions {
  minBytes?: number;
  /** Parts, one worker each (default: the cores the runtime reports, at most 4). */
  parts?: number;
}

/**
 * Reads an MSCONS interchange as it arrived (bytes, decoded in the character set of its `UNB`,
 * `./edifact_text.ts`) as {@link parseMscons} does (same result, same refusals), in parts on
 * several cores when it is large.
 * @throws {import("./errors.ts").SettlementInputRefused} as {@link parseMscons}
 */
export async function readMscons(
  bytes: Uint8Array,
  opts: ParallelOptions = {},
): Promise<MsconsInterchange> {
  const encoding = interchangeEncoding(bytes);
  const whole = () => parseMscons(decodeInterchange(bytes, encoding));
  const parts = Math.min(opts.parts ?? navigator.hardwareConcurrency ?? 1, 4);
  const cut = bytes.length >= (opts.minBytes ?? PARALLEL_MIN_BYTES) && parts > 1
    ? cutBetweenMessages(bytes, parts)
    : null;
  if (!cut) return whole();
  const headerSegments = segmentsOf(decodeInterchange(cut.header, encoding));
  if (headerSegments < 0) return whole();
  const workers: Worker[] = [];
  try {
    for (const _ of cut.parts) {
      workers.push(
        new Worker(new URL("./mscons_worker.ts", import.meta.url).href, { type: "module" }),
      );
    }
    const answers = await Promise.all(workers.map((w, i) => {
      // Each part after the first gets the header before it: one copy, handed over (not copied).
      const head = i === 0 ? new Uint8Array(0) : cut.header;
      const job = new Uint8Array(head.length + cut.parts[i].length);
      job.set(head);
      job.set(cut.parts[i], head.length);
      return answerOf(w, { encoding, bytes: job });
    }));
    const read: MsconsInterchange[] = [];
    for (const a of answers) {
      if (!("ok" in a)) return whole(); // in one piece, for the exact refusal
      read.push(a.ok);
    }
    return join(read, headerSegments);
  } catch (err) {
    if (workers.length === cut.parts.length) throw err;
    return whole(); // no worker could be started here: in one piece
  } finally {
    for (const w of workers) w.terminate();
  }
}

/** The number of segments of `text`; `-1` when it is not EDIFACT (the whole is then refused). */
function segmentsOf(text: string): number {
  let n = 0;
  try {
    readSegments(text, () => n++);
  } catch {
    return -1;
  }
  return n;
}

/** The answer of `worker` for `job` (its bytes handed over); a worker that fails answers `{ error }`. */
function answerOf(worker: Worker, job: PartJob): Promise<PartAnswer> {
  return new Promise((resolve) => {
    worker.onmessage = (e: MessageEvent<PartAnswer>) => resolve(e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      resolve({ error: e.message });
    };
    worker.postMessage(job, [job.bytes.buffer]);
  });
}

/** The parts joined: series in order, each part's `where` shifted to the whole's positions. */
function join(parts: MsconsInterchange[], headerSegments: number): MsconsInterchange {
  const [first, ...rest] = parts;
  const out = { ...first, series: [...first.series] };
  for (const part of rest) {
    // A part's own segments follow the header copied before it.
    const shift = out.segments - headerSegments;
    for (const s of part.series) out.series.push({ ...s, where: shiftWhere(s.where, shift) });
    out.messages += part.messages;
    out.segments += part.segments - headerSegments;
  }
  return out;
}

/** An interchange cut between messages. */
export interface Cut {
  /** What comes before the first message (`UNA`, `UNB`), to be put before every later part. */
  header: Uint8Array;
  /** The parts, in order (views of the interchange); each after the first starts with `UNH`. */
  parts: Uint8Array[];
}

/**
 * `bytes` cut into about `parts` parts of similar size, each after the first starting with a
 * message header segment `UNH`: `UNH` and the data element separator, right after a segment
 * terminator (line breaks between them allowed) that is not released. The separators are `UNA`'s
 * (ASCII in every character set), else ISO 9735's defaults. `null` when there is no second message
 * to cut at.
 */
export function cutBetweenMessages(bytes: Uint8Array, parts: number): Cut | null {
  const una = bytes.length >= 9 && bytes[0] === 85 && bytes[1] === 78 && bytes[2] === 65; // UNA
  const des = una ? bytes[4] : 43, rc = una ? bytes[6] : 63, st = una ? bytes[8] : 39;
  const terminated = (i: number) => {
    let j = i - 1;
    while (j >= 0 && (bytes[j] === 10 || bytes[j] === 13)) j--;
    if (j < 0 || bytes[j] !== st) return false;
    let released = 0;
    for (let k = j - 1; k >= 0 && bytes[k] === rc; k--) released++;
    return released % 2 === 0;
  };
  const isMessage = (i: number) =>
    bytes[i + 1] === 78 && bytes[i + 2] === 72 && bytes[i + 3] === des && terminated(i); // "NH"
  const next = (from: number) => {
    for (let i = bytes.indexOf(85, from); i >= 0; i = bytes.indexOf(85, i + 1)) { // "U"
      if (isMessage(i)) return i;
    }
    return -1;
  };
  const previous = (to: number, after: number) => {
    for (let i = bytes.lastIndexOf(85, to); i > after; i = bytes.lastIndexOf(85, i - 1)) {
      if (isMessage(i)) return i;
    }
    return -1;
  };
  const first = next(0);
  if (first < 0) return null;
  const cuts: number[] = [];
  for (let k = 1; k < parts; k++) {
    const prev = cuts.at(-1) ?? first;
    const target = Math.max(Math.floor(first + (bytes.length - first) * k / parts), prev + 1);
    // The message start at or after the target, else the last one before it.
    let c = next(target);
    if (c < 0) c = previous(target, prev);
    if (c > prev) cuts.push(c);
  }
  if (cuts.length === 0) return null;
  const bounds = [0, ...cuts, bytes.length];
  return {
    header: bytes.subarray(0, first),
    parts: bounds.slice(0, -1).map((b, i) => bytes.subarray(b, bounds[i + 1])),
  };
}
