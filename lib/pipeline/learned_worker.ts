/**
 * The worker side of a refresh of the learned forecasts (`./learned_refresh.ts`): runs half of its
 * batches (`runChunks`, `./learned_chunks.ts`) in a thread of its own with its own KV handle on
 * the same store file, so the refit of 10,000 locations uses both cores (docs/forecasting.md,
 * "In the service"; docs/benchmarks.md). One job per worker: message in `{kvPath, job}`, out
 * `{ok: true, result}` or `{ok: false, error: {name, message}}`; the refresh stops the worker after.
 * @module
 */
/// <reference lib="deno.worker" />
import { openKv } from "../store/kv.ts";
import { runChunks } from "./learned_chunks.ts";

self.onmessage = async (e: MessageEvent) => {
  const { kvPath, job } = e.data;
  let kv: Deno.Kv | undefined;
  try {
    kv = await openKv(kvPath);
    self.postMessage({ ok: true, result: await runChunks(kv, job) });
  } catch (err) {
    const x = err as Error;
    self.postMessage({ ok: false, error: { name: x.name, message: x.message } });
  } finally {
    kv?.close();
  }
};
