/**
 * State the console's islands share in the browser (docs/architecture.md, "Console"): the process key (kept in
 * `localStorage`), the last credential problem (401/403/503 with the service's sentence), a
 * ticking clock, the last status answer (with the manual actions the service offers) and the one
 * live {@link EventFeed}.
 *
 * All islands live in one bundle, so these module-level signals are shared between them. On the
 * server nothing here starts: islands render their "no key yet" state.
 *
 * @example
 * startSession();               // in the client entry, after hydration
 * setKey("…");                  // the key gate
 * const status = await api<StatusBody>("GET", "/v1/console/status");
 * @module
 */
import { computed, effect, signal, untracked } from "@preact/signals";
import { ApiError, apiRequest } from "./api.ts";
import { EventFeed } from "./feed.ts";
import type { StatusBody } from "./types.ts";

/** `localStorage` entry holding the process key. */
export const STORAGE_KEY = "scheduling-bridge.process-key";

/** A refusal that concerns the key or the service's authentication set-up. */
export interface AuthProblem {
  status: number;
  detail: string;
}

/** The process key in use (`null`: none entered). */
export const apiKey = signal<string | null>(null);
/** The last 401/403/503, cleared by the next success or a new key. */
export const authProblem = signal<AuthProblem | null>(null);
/** Milliseconds since the epoch, updated every second in the browser. */
export const now = signal<number>(Date.now());
/**
 * The last `GET /v1/console/status` answer (`null`: none yet or refused). The orchestrator panel
 * loads it; its `manual_actions` decide which buttons the other islands offer.
 */
export const status = signal<StatusBody | null>(null);
/** Bumped to have the status (and what depends on it, e.g. the pass list) read again now. */
export const statusRefresh = signal(0);

/** Reads the status again at once (after a manual pass, a start or a stop). */
export function refreshStatus(): void {
  statusRefresh.value++;
}

const REFUSALS = new Set([401, 403, 503]);

/** Since when (ms) the API could not be reached (status 0); cleared by the next answer. */
export const apiUnreachableSince = signal<number | null>(null);

/** True for a refusal the key gate already explains (401, 403, 503); islands stay quiet. */
export function isRefusal(err: unknown): boolean {
  return err instanceof ApiError && REFUSALS.has(err.status);
}

/**
 * An authenticated request with the current key; a 401/403/503 is published as
 * {@link authProblem}.
 * @throws {ApiError}
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const key = apiKey.peek();
  try {
    const out = await apiRequest<T>(key, method, path, body);
    if (authProblem.peek() && key === apiKey.peek()) authProblem.value = null;
    apiUnreachableSince.value = null;
    return out;
  } catch (err) {
    if (err instanceof ApiError) {
      if (err.status === 0) apiUnreachableSince.value ??= Date.now();
      else apiUnreachableSince.value = null; // it answered, if with a refusal
    }
    if (err instanceof ApiError && REFUSALS.has(err.status) && key === apiKey.peek()) {
      authProblem.value = { status: err.status, detail: err.detail };
    }
    throw err;
  }
}

/** The live event feed of this page. */
export const feed = new EventFeed({ request: (method, path) => api(method, path) });

/**
 * Since when (ms) the console has lost the service — the live stream is being retried or the
 * API did not answer — or `null` while connected: the pill turns grey and says so.
 */
export const connectionLostSince = computed(() => {
  const times = [feed.lostSince.value, apiUnreachableSince.value].filter((t) => t !== null);
  return times.length ? Math.min(...times) : null;
});

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined; // storage disabled by the browser
  }
}

/** Uses `key` from now on and keeps it in `localStorage`. */
export function setKey(key: string): void {
  const k = key.trim();
  if (!k) return;
  storage()?.setItem(STORAGE_KEY, k);
  authProblem.value = null;
  if (apiKey.peek() === k) apiKey.value = null; // the same key again: reload everything
  apiKey.value = k;
}

/** Removes the key from this browser; the islands go back to their locked state. */
export function forgetKey(): void {
  storage()?.removeItem(STORAGE_KEY);
  authProblem.value = null;
  apiKey.value = null;
}

/**
 * Starts the browser side: reads the stored key, ticks {@link now}, and (re)starts the feed
 * whenever the key changes. Returns a function that stops it all.
 */
export function startSession(): () => void {
  apiKey.value = storage()?.getItem(STORAGE_KEY) || null;
  const tick = setInterval(() => now.value = Date.now(), 1000);
  const dispose = effect(() => {
    const key = apiKey.value;
    untracked(() => {
      if (key) {
        void feed.start();
      } else {
        feed.stop();
        feed.events.value = [];
        status.value = null;
        apiUnreachableSince.value = null;
      }
    });
  });
  return () => {
    clearInterval(tick);
    dispose();
    feed.stop();
  };
}

/** The local calendar day of {@link now}; changes once a day, so rows re-render only then. */
export const today = computed(() => new Date(now.value).toDateString());
