/**
 * A KV Connect server for tests and benchmarks (docs/kv.md, "Replicas over KV Connect"): what the
 * `denokv` binary is, built from the same parts. denokv's SQLite engine comes from the npm package
 * `@deno/kv-linux-x64-gnu` (a Node-API module: `open`, `snapshotRead`, `atomicWrite`, `startWatch`,
 * `dequeueNextWatchMessage`, `endWatch`, each on the protocol's protobuf bytes), so the data path
 * hands the request body to the engine and its answer back unchanged; the engine checks the
 * protocol's limits (1,000 mutations and 800 KiB per atomic write, 64 KiB values, 2 KiB keys) and
 * refuses with the limit's name, answered 400 as `denokv` does.
 *
 * Protocol: denokv's `proto/kv-connect.md` (github.com/denoland/denokv), versions 2 and 3:
 * - `POST /` metadata exchange: `Authorization: Bearer <token>` and `{"supportedVersions": […]}`;
 *   answers the version, the nil database id, the one strong endpoint `/v2`, the token and an
 *   expiry a day ahead;
 * - `POST /v2/snapshot_read`, `POST /v2/atomic_write`: protobuf in, protobuf out;
 * - `POST /v2/watch`: a stream of `WatchOutput` messages, each after its length (u32 little
 *   endian), and an empty message every 5 s while nothing changes.
 * - `GET /stats` (not in the protocol, same token): the requests served per path and the bytes
 *   in and out since the start, so a benchmark can count round trips.
 *
 * Run: `deno run --allow-ffi --allow-net --allow-read --allow-write --allow-env
 * dev/kv_connect_server.ts <sqlite file> [port]` with `DENO_KV_ACCESS_TOKEN` set (the same variable
 * the service's KV Connect client reads). Listens on 127.0.0.1 (port 0 = any free port) and
 * prints `kv connect listening on http://127.0.0.1:<port>`; stops on SIGTERM/SIGINT.
 * @module
 */
import { createRequire } from "node:module";
import { atomicShape, readPrefix } from "./kv_connect_wire.ts";

/** The Node-API functions of `@deno/kv-linux-x64-gnu` used here (denokv `npm/napi/index.d.ts`). */
interface KvEngine {
  open(path: string, inMemory: boolean, debug: boolean): number;
  close(db: number, debug: boolean): void;
  snapshotRead(db: number, bytes: Uint8Array, debug: boolean): Promise<Uint8Array>;
  atomicWrite(db: number, bytes: Uint8Array, debug: boolean): Promise<Uint8Array>;
  startWatch(db: number, bytes: Uint8Array, debug: boolean): Promise<number>;
  dequeueNextWatchMessage(
    db: number,
    watch: number,
    debug: boolean,
  ): Promise<Uint8Array | undefined>;
  endWatch(db: number, watch: number, debug: boolean): void;
}

/** Requests and bytes served since the start (`GET /stats`). */
export interface KvConnectStats {
  /** Requests per path: `metadata`, `snapshot_read`, `atomic_write`, `watch`. */
  requests: Record<string, number>;
  /** Request body bytes received on the data path. */
  bytes_in: number;
  /** Response bytes sent on the data path (watch streams not counted). */
  bytes_out: number;
  /**
   * The largest atomic write seen: most checks, most mutations (enqueues counted with them, as
   * the limit does) and most bytes of one request, each over all writes so far.
   */
  largest_atomic: { checks: number; mutations: number; bytes: number };
  /** Snapshot reads and the bytes they answered, by the first key part they read (`"events"`). */
  reads_by_prefix: Record<string, { reads: number; bytes_out: number }>;
}

/** The nil UUID: one database per server, as `denokv` answers. */
const DATABASE_ID = "00000000-0000-0000-0000-000000000000";
/** Interval of the empty keep-alive message on a watch stream, in ms (as `denokv`). */
const WATCH_PING_MS = 5_000;
/** Engine refusals that are the client's fault (denokv `proto/convert.rs` `ConvertError`), → 400. */
const CLIENT_ERRORS =
  /^(KeyTooLong|ValueTooLong|ReadRangeTooLarge|AtomicWriteTooLarge|TooManyReadRanges|TooManyChecks|TooManyMutations|TooManyQueue\w+|QueueBackoffIntervalTooLarge|InvalidReadRangeLimit|InvalidVersionstamp|InvalidMutation\w+|TooManyWatchedKeys|DecodeError)\b|failed to decode/i;

/** Loads the engine (a `.node` addon: Deno loads it through `require`, with `--allow-ffi`). */
function loadEngine(): KvEngine {
  const require = createRequire(import.meta.url);
  return require("@deno/kv-linux-x64-gnu") as KvEngine;
}

/** A plain-text answer (the protocol's error bodies are text). */
const text = (status: number, body: string) =>
  new Response(body, { status, headers: { "content-type": "text/plain; charset=utf-8" } });

/** `true` when `Authorization` is `Bearer <token>` (compared in constant time). */
function authorized(req: Request, token: string): boolean {
  const m = /^bearer (.+)$/i.exec(req.headers.get("authorization") ?? "");
  if (!m) return false;
  const a = new TextEncoder().encode(m[1]);
  const b = new TextEncoder().encode(token);
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i] ?? 0) ^ b[i];
  return diff === 0;
}

/** A KV Connect server on one SQLite file; {@link serveKvConnect} starts it. */
export interface KvConnectServer {
  /** `http://127.0.0.1:<port>`: the `KV_PATH` of a service that uses it. */
  url: string;
  port: number;
  stats(): KvConnectStats;
  /** Ends the watch streams, stops listening and closes the database. */
  close(): Promise<void>;
}

/**
 * Serves the KV Connect protocol for the SQLite file `path` on 127.0.0.1:`port`.
 * @param token the access token clients must present (metadata exchange and data path)
 * @throws when the file cannot be opened or the port is taken
 */
export function serveKvConnect(path: string, port: number, token: string): KvConnectServer {
  const engine = loadEngine();
  const db = engine.open(path, false, false);
  const stats: KvConnectStats = {
    requests: { metadata: 0, snapshot_read: 0, atomic_write: 0, watch: 0 },
    bytes_in: 0,
    bytes_out: 0,
    largest_atomic: { checks: 0, mutations: 0, bytes: 0 },
    reads_by_prefix: {},
  };
  const countRead = (bytes: Uint8Array, out: Uint8Array) => {
    let prefix: string;
    try {
      prefix = readPrefix(bytes);
    } catch {
      prefix = "(undecodable)";
    }
    const entry = stats.reads_by_prefix[prefix] ??= { reads: 0, bytes_out: 0 };
    entry.reads++;
    entry.bytes_out += out.length;
  };
  const measure = (bytes: Uint8Array) => {
    const largest = stats.largest_atomic;
    largest.bytes = Math.max(largest.bytes, bytes.length);
    try {
      const { checks, mutations } = atomicShape(bytes);
      largest.checks = Math.max(largest.checks, checks);
      largest.mutations = Math.max(largest.mutations, mutations);
    } catch { /* not counted: the engine answers with what is wrong */ }
  };
  const closing = new AbortController();

  const metadata = async (req: Request, url: URL) => {
    stats.requests.metadata++;
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      return text(400, 'The metadata exchange needs a JSON body {"supportedVersions": [2, 3]}.');
    }
    const versions = (body as { supportedVersions?: unknown })?.supportedVersions;
    const list = Array.isArray(versions) ? versions : [];
    const version = list.includes(3) ? 3 : list.includes(2) ? 2 : 0;
    if (!version) {
      return text(
        400,
        `No protocol version in common: this server speaks 2 and 3, the client ${
          JSON.stringify(versions)
        }.`,
      );
    }
    if (!authorized(req, token)) return text(401, "The access token is missing or wrong.");
    return Response.json({
      version,
      databaseId: DATABASE_ID,
      endpoints: [{ url: new URL("/v2", url).href, consistency: "strong" }],
      token,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
  };

  const engineCall = async (kind: "snapshot_read" | "atomic_write", req: Request) => {
    stats.requests[kind]++;
    const bytes = new Uint8Array(await req.arrayBuffer());
    stats.bytes_in += bytes.length;
    if (kind === "atomic_write") measure(bytes);
    try {
      const out = kind === "snapshot_read"
        ? await engine.snapshotRead(db, bytes, false)
        : await engine.atomicWrite(db, bytes, false);
      stats.bytes_out += out.length;
      if (kind === "snapshot_read") countRead(bytes, out);
      return new Response(new Uint8Array(out), {
        headers: { "content-type": "application/x-protobuf" },
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return CLIENT_ERRORS.test(message)
        ? text(400, `The ${kind} request was refused by the engine: ${message}.`)
        : text(500, `The ${kind} request failed in the engine: ${message}.`);
    }
  };

  const watch = async (req: Request) => {
    stats.requests.watch++;
    const bytes = new Uint8Array(await req.arrayBuffer());
    let id: number;
    try {
      id = await engine.startWatch(db, bytes, false);
    } catch (err) {
      return text(400, `The watch request was refused by the engine: ${String(err)}.`);
    }
    const frame = (msg: Uint8Array) => {
      const out = new Uint8Array(4 + msg.length);
      new DataView(out.buffer).setUint32(0, msg.length, true);
      out.set(msg, 4);
      return out;
    };
    let ended = false;
    let ping: ReturnType<typeof setInterval> | undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(ping);
      engine.endWatch(db, id, false);
    };
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        ping = setInterval(() => controller.enqueue(frame(new Uint8Array())), WATCH_PING_MS);
        const stop = () => {
          end();
          try {
            controller.close();
          } catch { /* already closed */ }
        };
        closing.signal.addEventListener("abort", stop, { once: true });
        req.signal.addEventListener("abort", stop, { once: true });
        (async () => {
          while (!ended) {
            const msg = await engine.dequeueNextWatchMessage(db, id, false).catch(() => undefined);
            if (ended) return engine.endWatch(db, id, false); // the engine put it back: drop it
            if (!msg) return stop();
            controller.enqueue(frame(msg));
          }
        })();
      },
      cancel: end,
    });
    return new Response(body, { headers: { "content-type": "application/octet-stream" } });
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    if (req.method === "GET" && url.pathname === "/stats") {
      return authorized(req, token)
        ? Response.json(stats)
        : text(401, "The access token is missing or wrong.");
    }
    if (req.method !== "POST") return text(405, `${req.method} ${url.pathname}: only POST here.`);
    if (url.pathname === "/") return metadata(req, url);
    if (!url.pathname.startsWith("/v2/")) {
      return text(404, `${url.pathname} is no KV Connect path.`);
    }
    const version = req.headers.get("x-denokv-version");
    if (version !== "2" && version !== "3") {
      return text(400, `x-denokv-version ${JSON.stringify(version)}: this server speaks 2 and 3.`);
    }
    if (!authorized(req, token)) return text(401, "The access token is missing or wrong.");
    if (req.headers.get("x-denokv-database-id") !== DATABASE_ID) {
      return text(400, `x-denokv-database-id must be ${DATABASE_ID}, the id the metadata gave.`);
    }
    switch (url.pathname) {
      case "/v2/snapshot_read":
        return engineCall("snapshot_read", req);
      case "/v2/atomic_write":
        return engineCall("atomic_write", req);
      case "/v2/watch":
        return watch(req);
    }
    return text(404, `${url.pathname} is no KV Connect path.`);
  });
  const actual = server.addr.port;
  return {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    stats: () => structuredClone(stats),
    async close() {
      closing.abort();
      await server.shutdown();
      engine.close(db, false);
    },
  };
}

if (import.meta.main) {
  const [path, port = "0"] = Deno.args;
  const token = Deno.env.get("DENO_KV_ACCESS_TOKEN");
  if (!path || !token || !/^\d+$/.test(port)) {
    console.error(
      "usage: DENO_KV_ACCESS_TOKEN=<token> deno run --allow-ffi --allow-net --allow-read " +
        "--allow-write --allow-env dev/kv_connect_server.ts <sqlite file> [port]",
    );
    Deno.exit(2);
  }
  const server = serveKvConnect(path, Number(port), token);
  console.log(`kv connect listening on ${server.url}`);
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    Deno.addSignalListener(signal, async () => {
      await server.close();
      Deno.exit(0);
    });
  }
}
