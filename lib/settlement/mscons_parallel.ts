/**
 * Reads a large MSCONS interchange on several cores (docs/settlement.md, "Cost"): a DSO sends one
 * message (`UNH` … `UNT`) per market location, and the messages of an interchange are independent,
 * so the interchange is cut between messages into chunks, each read by {@link parseMscons}, and the
 * chunks' series are joined in order, their `where` shifted to the segment positions of the whole.
 * This thread takes chunks from the front, workers (`./mscons_worker.ts`) from the back; a shared
 * table of claims (`Atomics.compareExchange`) gives each chunk to exactly one reader, so whoever is
 * faster reads more and all finish together.
 *
 * Only the good path runs in chunks. When any chunk is refused, or a worker fails, the whole
 * interchange is read again in one piece: its refusal (with the exact message, segment and
 * location) is the one told, and a cut in the wrong place can never pass unnoticed — every chunk
 * is read by the EDIFACT library, which refuses a chunk that does not start or end on a segment.
 * @module
 */
import { readSegments } from "./edifact_segments.ts";
import { type MsconsInterchange, parseMscons, shiftWhere } from "./mscons.ts";
import type { ChunkAnswer, ChunkJob } from "./mscons_worker.ts";

/** Below this many characters (about 550 location-days) one piece is faster than starting a worker. */
export const PARALLEL_MIN_CHARS = 4 * 1024 * 1024;

/**
 * Chunks per thread. One measured fastest (docs/settlement.md, "Cost"): smaller chunks balance the
 * threads better but cost more than that in copying (each chunk is sent to the workers and gets the
 * header put before it).
 */
const CHUNKS_PER_THREAD = 1;

/** Options, for tests: the size from which to cut and the number of threads. */
export interface ParallelOptions {
  minChars?: number;
  /** Threads, this one included (default: the cores the runtime reports, at most 4). */
  threads?: number;
  /** For tests: this thread reads only the chunks workers may not, and waits for the rest. */
  leaveToWorkers?: boolean;
}

/**
 * Reads an MSCONS interchange as {@link parseMscons} does (same result, same refusals), in chunks
 * on several cores when it is large.
 * @throws {import("./errors.ts").SettlementInputRefused} as {@link parseMscons}
 */
export async function readMscons(
  text: string,
  opts: ParallelOptions = {},
): Promise<MsconsInterchange> {
  const threads = Math.min(opts.threads ?? navigator.hardwareConcurrency ?? 1, 4);
  const cut = text.length >= (opts.minChars ?? PARALLEL_MIN_CHARS) && threads > 1
    ? cutBetweenMessages(text, threads * CHUNKS_PER_THREAD)
    : null;
  if (!cut) return parseMscons(text);
  const n = cut.parts.length;
  const claims = new Int32Array(new SharedArrayBuffer(4 * n));
  // Workers may read the chunks from `from` on (this thread's own share is not sent to them).
  const from = Math.max(1, Math.floor(n / threads));
  const job: ChunkJob = { header: cut.header, chunks: cut.parts.slice(from), from, claims };
  const workers = Array.from(
    { length: threads - 1 },
    () => new Worker(new URL("./mscons_worker.ts", import.meta.url).href, { type: "module" }),
  );
  try {
    const answers = workers.map((w) => answerOf(w, job));
    const read: (MsconsInterchange | undefined)[] = new Array(n);
    for (let i = 0; i < (opts.leaveToWorkers ? from : n); i++) {
      if (Atomics.compareExchange(claims, i, 0, 1) !== 0) continue; // a worker has it
      try {
        read[i] = parseMscons(i === 0 ? cut.parts[0] : cut.header + cut.parts[i]);
      } catch {
        return parseMscons(text); // refused: in one piece, for the exact sentences (throws)
      }
    }
    for (const a of await Promise.all(answers)) {
      if (!("ok" in a)) return parseMscons(text);
      for (const [i, r] of a.ok) read[i] = r;
    }
    if (read.some((r) => r === undefined) || read.length !== n) return parseMscons(text);
    return join(read as MsconsInterchange[], cut.headerSegments);
  } finally {
    for (const w of workers) w.terminate();
  }
}

/** The answer of `worker` to `job`; a worker that fails answers `{ error }`. */
function answerOf(worker: Worker, job: ChunkJob): Promise<ChunkAnswer> {
  return new Promise((resolve) => {
    worker.onmessage = (e: MessageEvent<ChunkAnswer>) => resolve(e.data);
    worker.onerror = (e) => {
      e.preventDefault();
      resolve({ error: e.message });
    };
    worker.postMessage(job);
  });
}

/** The chunks joined: series in order, each chunk's `where` shifted to the whole's positions. */
function join(chunks: MsconsInterchange[], headerSegments: number): MsconsInterchange {
  const [first, ...rest] = chunks;
  const out = { ...first, series: [...first.series] };
  for (const chunk of rest) {
    // A chunk's own segments follow the header copied before it.
    const shift = out.segments - headerSegments;
    for (const s of chunk.series) out.series.push({ ...s, where: shiftWhere(s.where, shift) });
    out.messages += chunk.messages;
    out.segments += chunk.segments - headerSegments;
  }
  return out;
}

/**
 * `text` cut into about `parts` parts of similar size, each (after the first) starting with a
 * message header segment `UNH`; `header` is what comes before the first message (`UNA`, `UNB`),
 * to be put before every later part. `null` when there is no second message to cut at.
 */
export function cutBetweenMessages(
  text: string,
  parts: number,
): { header: string; headerSegments: number; parts: string[] } | null {
  const una = text.startsWith("UNA") && text.length >= 9;
  const at = messageFinder(
    una ? text[4] : "+",
    una ? text[6] : "?",
    una ? text[8] : "'",
  );
  const first = at(text, 0);
  if (first < 0) return null;
  const cuts: number[] = [];
  for (let k = 1; k < parts; k++) {
    const prev = cuts.at(-1) ?? first;
    const target = Math.max(first + (text.length - first) * k / parts, prev + 1);
    // The message start at or after the target, else the last one before it.
    let c = at(text, target);
    if (c < 0) {
      for (let back = target; back > prev && c <= prev;) {
        back = text.lastIndexOf(`UNH`, back - 1);
        if (back <= prev) break;
        c = at(text, back) === back ? back : -1;
      }
    }
    if (c > prev) cuts.push(c);
  }
  if (cuts.length === 0) return null;
  const header = text.slice(0, first);
  let headerSegments = 0;
  readSegments(header, () => headerSegments++);
  const bounds = [0, ...cuts, text.length];
  return {
    header,
    headerSegments,
    parts: bounds.slice(0, -1).map((b, i) => text.slice(b, bounds[i + 1])),
  };
}

/**
 * A finder of the next `UNH` segment at or after an index: `UNH` and the data element separator,
 * right after a segment terminator (line breaks between them allowed) that is not released.
 */
function messageFinder(des: string, rc: string, st: string) {
  const needle = `UNH${des}`;
  return (text: string, from: number): number => {
    for (let i = text.indexOf(needle, Math.ceil(from)); i >= 0; i = text.indexOf(needle, i + 1)) {
      let j = i - 1;
      while (j >= 0 && (text[j] === "\n" || text[j] === "\r")) j--;
      if (j < 0 || text[j] !== st) continue;
      let released = 0;
      for (let k = j - 1; k >= 0 && text[k] === rc; k--) released++;
      if (released % 2 === 0) return i;
    }
    return -1;
  };
}
