/**
 * The worker side of {@link import("./pass_offload.ts").PassOffload} (docs/architecture.md,
 * "Heavy work off the request thread"): runs the forecast step's and aggregation's KV work in its
 * own thread with its own KV handle on the same store, so neither its CPU time nor its garbage
 * collection holds up the requests the main thread serves. Messages in: `{id, kvPath, kind,
 * day, opts}`; out: `{id, ok: true, result}` or `{id, ok: false, error: {name, message, code?,
 * outcome?}}`.
 * @module
 */
/// <reference lib="deno.worker" />
import { openKv } from "../store/kv.ts";
import { aggregateDay } from "./aggregate.ts";
import { generateForecasts } from "./generate.ts";

let kv: Deno.Kv | undefined;
let openPath: string | undefined;

self.onmessage = async (e: MessageEvent) => {
  const { id, kvPath, kind, day, opts } = e.data;
  try {
    if (!kv || openPath !== kvPath) {
      kv?.close();
      kv = await openKv(kvPath);
      openPath = kvPath;
    }
    const result = kind === "forecast"
      ? await generateForecasts(kv, day, opts)
      : await aggregateDay(kv, day, opts);
    self.postMessage({ id, ok: true, result });
  } catch (err) {
    const x = err as Error & { code?: unknown; outcome?: unknown };
    self.postMessage({
      id,
      ok: false,
      error: { name: x.name, message: x.message, code: x.code, outcome: x.outcome },
    });
  }
};
