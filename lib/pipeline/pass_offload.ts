/**
 * Heavy pipeline work off the request thread (docs/architecture.md, "Heavy work off the request
 * thread"): the forecast step and aggregation run in a Worker (`./pass_worker.ts`) with its own
 * KV handle on the same store file. The main thread keeps serving requests — health, status, the
 * console's live stream — while a day of a million market locations is computed; the worker's
 * garbage collection does not pause it. Consistency is the same as between two replicas: every
 * write checks what it read.
 *
 * Used only for a local store file (not `:memory:`, a KV Connect URL or Deno Deploy's KV, which a
 * second handle could not share); otherwise the steps run in the calling thread.
 * @module
 */
import { DomainError, type ErrorCode, type ErrorOutcome } from "../domain/errors.ts";
import type { Aggregate, aggregateDay } from "./aggregate.ts";
import type { generateForecasts, GenerateResult } from "./generate.ts";

/** Options of the forecast step: those of `generateForecasts`. */
export type ForecastOpts = Parameters<typeof generateForecasts>[2];

/** Options of aggregation: those of `aggregateDay`. */
export type AggregateOpts = Parameters<typeof aggregateDay>[2];

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

/** Whether a store path names a local file a second handle can open. */
export function isLocalStoreFile(kvPath: string): boolean {
  return kvPath !== "" && kvPath !== ":memory:" && !/^https?:\/\//.test(kvPath);
}

/**
 * Idle time after which the worker is stopped (ms): the memory of a pass — its heap and its KV
 * handle's cache — goes back to the system between passes (the orchestrator runs one a minute),
 * while the steps of one pass (forecast, then aggregate) share one worker.
 */
export const WORKER_IDLE_MS = 500;

/** One worker per app, started at its first use and stopped when idle or by {@link PassOffload.close}. */
export class PassOffload {
  readonly #kvPath: string;
  #worker: Worker | undefined;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #next = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #onDone?: () => void;

  /**
   * @param kvPath the app's store file (see {@link isLocalStoreFile})
   * @param onDone called when a job ended, before its caller goes on: the worker wrote through
   *   its own handle (the app counts it as a change of the console's inputs)
   */
  constructor(kvPath: string, onDone?: () => void) {
    this.#kvPath = kvPath;
    this.#onDone = onDone;
  }

  /** The store file the worker opens (a second handle may open it too). */
  get kvPath(): string {
    return this.#kvPath;
  }

  /** The forecast step of `day` in the worker. @throws what `generateForecasts` throws */
  forecast(day: string, opts: ForecastOpts): Promise<GenerateResult> {
    return this.#run("forecast", day, opts) as Promise<GenerateResult>;
  }

  /** Aggregation of `day` in the worker. @throws what `aggregateDay` throws */
  aggregate(day: string, opts: AggregateOpts): Promise<Aggregate> {
    return this.#run("aggregate", day, opts) as Promise<Aggregate>;
  }

  /** Stops the worker; calls still waiting fail. */
  close(): void {
    clearTimeout(this.#idle);
    this.#worker?.terminate();
    this.#worker = undefined;
    this.#failAll(new Error("the pipeline worker was stopped"));
  }

  #run(
    kind: "forecast" | "aggregate",
    day: string,
    opts: ForecastOpts | AggregateOpts,
  ): Promise<unknown> {
    const id = this.#next++;
    clearTimeout(this.#idle);
    const worker = this.#ensure();
    const { promise, resolve, reject } = Promise.withResolvers<unknown>();
    this.#pending.set(id, { resolve, reject });
    worker.postMessage({ id, kvPath: this.#kvPath, kind, day, opts });
    return promise;
  }

  #ensure(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL("./pass_worker.ts", import.meta.url).href, {
      type: "module",
    });
    worker.onmessage = (e: MessageEvent) => {
      const { id, ok, result, error } = e.data;
      const p = this.#pending.get(id);
      if (!p) return;
      this.#pending.delete(id);
      this.#onDone?.();
      if (ok) p.resolve(result);
      else p.reject(revive(error));
      if (this.#pending.size === 0) {
        clearTimeout(this.#idle);
        this.#idle = setTimeout(() => {
          if (this.#pending.size || this.#worker !== worker) return;
          worker.terminate();
          this.#worker = undefined;
        }, WORKER_IDLE_MS);
      }
    };
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      // A crashed worker is replaced at the next use; what it was doing fails in words.
      this.#worker?.terminate();
      this.#worker = undefined;
      this.#failAll(new Error(`the pipeline worker stopped: ${e.message}`));
    };
    this.#worker = worker;
    return worker;
  }

  #failAll(err: Error): void {
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }
}

/** The worker's error as the caller's: a {@link DomainError} keeps its code and outcome. */
function revive(e: { name: string; message: string; code?: unknown; outcome?: unknown }): Error {
  if (typeof e.code === "string" && typeof e.outcome === "string") {
    const err = new DomainError(e.code as ErrorCode, e.outcome as ErrorOutcome, e.message);
    err.name = e.name;
    return err;
  }
  const err = Object.assign(new Error(e.message), e.code === undefined ? {} : { code: e.code });
  err.name = e.name;
  return err;
}
