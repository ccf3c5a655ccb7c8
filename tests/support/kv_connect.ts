/**
 * Test fixture: the KV Connect server of `dev/kv_connect_server.ts` in a process of its own (it
 * loads a Node-API module, which needs `--allow-ffi`, a permission the test runs do not have), on
 * 127.0.0.1 and a SQLite file in a temp dir; service processes reach it with
 * {@link KvConnectPeer.serviceEnv}. It can be killed and started again on the same port and file.
 * @module
 */
import { freePort } from "./net.ts";
import type { KvConnectStats } from "../../dev/kv_connect_server.ts";

/** The access token of every peer started here (clients send it as `DENO_KV_ACCESS_TOKEN`). */
export const KV_CONNECT_TOKEN = "kv-connect-test-token-0001";

/** A running (or, between {@link KvConnectPeer.kill} and {@link KvConnectPeer.start}, stopped) peer. */
export interface KvConnectPeer {
  /** `http://127.0.0.1:<port>`: the `KV_PATH` of the services. */
  url: string;
  /** The SQLite file it serves (readable with `Deno.openKv(path)` once the peer is stopped). */
  path: string;
  /** `KV_PATH` and `DENO_KV_ACCESS_TOKEN` for a service process on this peer. */
  serviceEnv: Record<string, string>;
  /** Requests and bytes served, largest atomic write, since this process started (`GET /stats`). */
  stats(): Promise<KvConnectStats>;
  /** SIGKILL: the process ends at once, answers in flight are lost. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and file. */
  start(): Promise<void>;
  /** Stops it (SIGTERM) and removes its temp dir (none for a given `path`) unless `keep`. */
  close(opts?: { keep?: boolean }): Promise<void>;
}

/**
 * Starts `dev/kv_connect_server.ts` on a free port and waits for its "kv connect listening on"
 * line.
 * @param opts.path serve this SQLite file (e.g. a local store file, the caller removes it)
 *   instead of a new one in a temp dir
 * @throws when it exits or does not listen within 30 s
 */
export async function startKvConnect(opts: { path?: string } = {}): Promise<KvConnectPeer> {
  const dir = opts.path ? undefined : await Deno.makeTempDir({ prefix: "bridge-kvc-" });
  const path = opts.path ?? `${dir}/denokv.sqlite`;
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: Deno.ChildProcess | undefined;
  let reading: Promise<unknown> = Promise.resolve();

  const start = async () => {
    const proc = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-ffi",
        "--allow-net=127.0.0.1",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "dev/kv_connect_server.ts",
        path,
        String(port),
      ],
      env: { DENO_KV_ACCESS_TOKEN: KV_CONNECT_TOKEN },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    child = proc;
    let out = "";
    let err = "";
    const { promise: listening, resolve, reject } = Promise.withResolvers<void>();
    reading = Promise.all([
      (async () => {
        for await (const chunk of proc.stdout.pipeThrough(new TextDecoderStream())) {
          out += chunk;
          if (out.includes("kv connect listening on")) resolve();
        }
      })(),
      (async () => {
        for await (const chunk of proc.stderr.pipeThrough(new TextDecoderStream())) err += chunk;
      })(),
    ]);
    proc.status.then((s) => reject(new Error(`kv_connect_server exited with ${s.code}: ${err}`)));
    const timer = setTimeout(
      () => reject(new Error("kv_connect_server: no listen in 30 s")),
      30_000,
    );
    try {
      await listening;
    } catch (e) {
      try {
        proc.kill("SIGKILL");
      } catch { /* gone */ }
      await proc.status;
      await reading;
      throw e;
    } finally {
      clearTimeout(timer);
    }
  };

  const stop = async (signal: Deno.Signal) => {
    const proc = child;
    child = undefined;
    if (!proc) return;
    try {
      proc.kill(signal);
    } catch { /* gone */ }
    await proc.status;
    await reading;
  };

  await start();
  return {
    url,
    path,
    serviceEnv: { KV_PATH: url, DENO_KV_ACCESS_TOKEN: KV_CONNECT_TOKEN },
    async stats() {
      const r = await fetch(`${url}/stats`, {
        headers: { authorization: `Bearer ${KV_CONNECT_TOKEN}` },
      });
      if (r.status !== 200) throw new Error(`GET /stats: ${r.status} ${await r.text()}`);
      return await r.json();
    },
    kill: () => stop("SIGKILL"),
    start,
    async close(o = {}) {
      await stop("SIGTERM");
      if (dir && !o.keep) await Deno.remove(dir, { recursive: true });
    },
  };
}
