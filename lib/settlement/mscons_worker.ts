/**
 * The worker of `./mscons_parallel.ts`: decodes and reads one part of an MSCONS interchange (the
 * interchange's header, then the part's messages) with {@link parseMscons} and answers with what it held, or
 * that it was refused (the caller then reads the whole interchange in one piece, whose refusal is
 * the one told).
 * @module
 */
/// <reference lib="deno.worker" />
import { decodeInterchange } from "./edifact_text.ts";
import { type MsconsInterchange, parseMscons } from "./mscons.ts";
import { SettlementInputRefused } from "./errors.ts";

/** One part: its bytes (handed over) and the interchange's encoding label. */
export interface PartJob {
  encoding: string;
  bytes: Uint8Array;
}

/** What the worker answers for one part. */
export type PartAnswer =
  | { ok: MsconsInterchange }
  | { refused: true }
  | { error: string };

self.onmessage = (e: MessageEvent<PartJob>) => {
  let answer: PartAnswer;
  try {
    answer = { ok: parseMscons(decodeInterchange(e.data.bytes, e.data.encoding)) };
  } catch (err) {
    answer = err instanceof SettlementInputRefused
      ? { refused: true }
      : { error: (err as Error).message };
  }
  self.postMessage(answer);
};
