/**
 * The worker side of a refresh of the learned forecasts (`./learned_refresh.ts`): runs batches
 * (`runChunks`, `./learned_chunks.ts`) in a thread of its own with its own KV handle on the same
 * store file, so the refit of 10,000 locations uses both cores (docs/forecasting.md, "Two
 * threads"). Messages in: `{kvPath, job}` to start, then `{batch}` (a batch of locations, `null`
 * when none is left) for each `{next: true}` it sends; out, at the end, `{ok: true, result}` or
 * `{ok: false, error: {name, message}}`. The refresh stops the worker after.
 * @module
 */
/// <reference lib="deno.worker" />
import type { MarketLocation } from "./market_location_record.ts";
import { openKv } from "../store/kv.ts";
import { runChunks } from "./learned_chunks.ts";

/** Answers to `{next: true}`, in the order asked (one is outstanding at a time). */
const waiting: ((batch: MarketLocation[] | null) => void)[] = [];

self.onmessage = async (e: MessageEvent) => {
  if ("batch" in e.data) {
    waiting.shift()?.(e.data.batch);
    return;
  }
  const { kvPath, job } = e.data;
  let kv: Deno.Kv | undefined;
  try {
    kv = await openKv(kvPath);
    const source = () =>
      new Promise<MarketLocation[] | null>((resolve) => {
        waiting.push(resolve);
        self.postMessage({ next: true });
      });
    self.postMessage({ ok: true, result: await runChunks(kv, job, source) });
  } catch (err) {
    const x = err as Error;
    self.postMessage({ ok: false, error: { name: x.name, message: x.message } });
  } finally {
    kv?.close();
  }
};
