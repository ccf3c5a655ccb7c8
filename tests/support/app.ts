/**
 * Test fixture: the real app on a temp-file KV, served by `Deno.serve` on 127.0.0.1 port 0.
 * @module
 */
import { type BridgeApp, createApp } from "../../app.ts";
import type { Clock } from "../../lib/clock.ts";
import type { LogSink } from "../../lib/log.ts";
import { loadSettings } from "../../lib/settings.ts";

/** A running test server. */
export interface TestServer {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  kv: Deno.Kv;
  kvPath: string;
  bridge: BridgeApp;
  /** Stops the server, drains events and closes KV; removes the temp dir unless `keepDir`. */
  close(opts?: { keepDir?: boolean }): Promise<void>;
}

/**
 * Starts the app with `env` (KV_PATH is set to a fresh temp file unless given).
 * @param opts.clock fake clock; @param opts.kvPath reuse an existing KV file (restart tests);
 *   @param opts.heartbeatMs the live stream's heartbeat period (default 15 s);
 *   @param opts.wrapKv what the app gets instead of the opened store (e.g. a proxy recording its
 *   reads); `kv` of the result stays the store itself
 */
export async function startServer(
  env: Record<string, string>,
  opts: {
    clock?: Clock;
    kvPath?: string;
    heartbeatMs?: number;
    logSink?: LogSink;
    wrapKv?: (kv: Deno.Kv) => Deno.Kv;
  } = {},
): Promise<TestServer> {
  const dir = opts.kvPath ? undefined : await Deno.makeTempDir({ prefix: "bridge-test-" });
  const kvPath = opts.kvPath ?? `${dir}/bridge.kv`;
  const settings = loadSettings({ ...env, KV_PATH: kvPath });
  const kv = await Deno.openKv(kvPath);
  const bridge = await createApp({
    settings,
    kv: opts.wrapKv ? opts.wrapKv(kv) : kv,
    clock: opts.clock,
    streamHeartbeatMs: opts.heartbeatMs,
    logSink: opts.logSink,
  });
  const ac = new AbortController();
  const { promise: listening, resolve } = Promise.withResolvers<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen: ({ port }) => resolve(port),
  }, bridge.fetch);
  const port = await listening;
  return {
    url: `http://127.0.0.1:${port}`,
    kv,
    kvPath,
    bridge,
    async close({ keepDir = false } = {}) {
      ac.abort();
      await server.finished;
      await bridge.close();
      kv.close();
      if (dir && !keepDir) await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Reads every stored event record (oldest first) straight from KV. */
export async function storedEvents(kv: Deno.Kv): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const e of kv.list<Record<string, unknown>>({ prefix: ["events"] })) {
    out.push(e.value);
  }
  return out;
}

/** Fetches and consumes the body; returns status, headers and parsed JSON (or text). */
export async function call(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, body };
}

/**
 * Sends raw bytes over TCP (for headers `fetch` refuses to send, e.g. non-ASCII) and returns the
 * status code of the response.
 */
export async function rawRequest(url: string, head: Uint8Array): Promise<number> {
  const u = new URL(url);
  const conn = await Deno.connect({ hostname: u.hostname, port: Number(u.port) });
  try {
    await conn.write(head);
    const buf = new Uint8Array(4096);
    const n = await conn.read(buf);
    const text = new TextDecoder().decode(buf.subarray(0, n ?? 0));
    return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  } finally {
    conn.close();
  }
}
