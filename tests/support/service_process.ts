/**
 * Test fixture: `main.ts` in a process of its own on 127.0.0.1 port 0 and a temp-file KV, for
 * tests that measure the server itself (resident memory) or read its process log.
 * @module
 */

/** A running service process. */
export interface ServiceProcess {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The KV file (`KV_PATH`) the process runs on. */
  kvPath: string;
  pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): { stdout: string; stderr: string };
  /** Resident set size of the process in bytes (`VmRSS` of `/proc/<pid>/status`). */
  rssBytes(): Promise<number>;
  /** Resolves with the process's status when it exits. */
  exited: Promise<Deno.CommandStatus>;
  /** Sends `signal` to the process (without waiting). */
  kill(signal: Deno.Signal): void;
  /** Sends SIGTERM, waits for the exit, removes the temp dir (not a given `kvPath`). */
  close(): Promise<void>;
}

/**
 * Starts `main.ts` with `env` (plus `KV_PATH`, `PORT=0`, `HOSTNAME=127.0.0.1`) and waits for its
 * "listening on" line.
 * @param opts.kvPath run on this KV file (a restored copy, or another process's for two replicas
 *   on one store; the caller removes it) instead of one in a new temp dir
 * @throws when the process exits or does not listen within 30 s
 */
export async function spawnService(
  env: Record<string, string>,
  opts: { kvPath?: string } = {},
): Promise<ServiceProcess> {
  const dir = opts.kvPath ? undefined : await Deno.makeTempDir({ prefix: "bridge-proc-" });
  const kvPath = opts.kvPath ?? `${dir}/bridge.kv`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    env: { ...env, KV_PATH: kvPath, PORT: "0", HOSTNAME: "127.0.0.1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stdout = "";
  let stderr = "";
  const { promise: listening, resolve, reject } = Promise.withResolvers<number>();
  const reading = Promise.all([
    (async () => {
      for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
        stdout += chunk;
        const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stdout);
        if (m) resolve(Number(m[1]));
      }
    })(),
    (async () => {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
    })(),
  ]);
  child.status.then((s) => reject(new Error(`main.ts exited with ${s.code}: ${stderr}`)));
  const timer = setTimeout(() => reject(new Error("main.ts did not listen within 30 s")), 30_000);
  let port: number;
  try {
    port = await listening;
  } catch (err) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await reading;
    if (dir) await Deno.remove(dir, { recursive: true });
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    kvPath,
    pid: child.pid,
    output: () => ({ stdout, stderr }),
    exited: child.status,
    kill: (signal) => child.kill(signal),
    async rssBytes() {
      // Read through `cat`: Deno asks for --allow-all to read another process's /proc entry.
      const out = await new Deno.Command("cat", { args: [`/proc/${child.pid}/status`] }).output();
      const status = new TextDecoder().decode(out.stdout);
      const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1]);
      if (!Number.isFinite(kb)) throw new Error(`no VmRSS for process ${child.pid}`);
      return kb * 1024;
    },
    async close() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
      await reading;
      if (dir) await Deno.remove(dir, { recursive: true });
    },
  };
}
