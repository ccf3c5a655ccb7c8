/**
 * The worker of `./mscons_parallel.ts`: reads chunks of an MSCONS interchange (the interchange's
 * header, then the chunk's messages) with {@link parseMscons}, from the last one back, each one it
 * can claim in the shared table; answers with what they held, or that one was refused (the caller
 * then reads the whole interchange in one piece, whose refusal is the one told).
 * @module
 */
/// <reference lib="deno.worker" />
import { type MsconsInterchange, parseMscons } from "./mscons.ts";
import { SettlementInputRefused } from "./errors.ts";

/** The work offered: chunks `from` … `from + chunks.length - 1`, and the claims of all chunks. */
export interface ChunkJob {
  header: string;
  chunks: string[];
  from: number;
  /** One cell per chunk of the interchange: 0 free, else claimed (by `compareExchange`). */
  claims: Int32Array;
}

/** What the worker answers: the chunks it read, by index. */
export type ChunkAnswer =
  | { ok: [number, MsconsInterchange][] }
  | { refused: true }
  | { error: string };

self.onmessage = (e: MessageEvent<ChunkJob>) => {
  const { header, chunks, from, claims } = e.data;
  const read: [number, MsconsInterchange][] = [];
  let answer: ChunkAnswer;
  try {
    for (let j = chunks.length - 1; j >= 0; j--) {
      if (Atomics.compareExchange(claims, from + j, 0, 2) !== 0) continue;
      read.push([from + j, parseMscons(header + chunks[j])]);
    }
    answer = { ok: read };
  } catch (err) {
    answer = err instanceof SettlementInputRefused
      ? { refused: true }
      : { error: (err as Error).message };
  }
  self.postMessage(answer);
};
