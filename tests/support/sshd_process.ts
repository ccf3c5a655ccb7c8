/**
 * The sshd process of the fixture (`sshd.ts`): its configuration, its log, and starting it on a
 * port until it listens.
 * @module
 */
const START_TIMEOUT_MS = 10_000;

/**
 * The sshd_config of the fixture: 127.0.0.1:`port`, host key and `authorized_keys` in `dir`,
 * only the fixture's own `user` and only sFTP; `penalties` turns `PerSourcePenalties` off
 * (OpenSSH ≥ 9.8).
 */
export function sshdConfig(
  o: { port: number; dir: string; user: string; penalties: boolean },
): string {
  return [
    `ListenAddress 127.0.0.1:${o.port}`,
    "AddressFamily inet",
    `HostKey ${o.dir}/ssh_host_ed25519_key`,
    `PidFile ${o.dir}/sshd.pid`,
    `AuthorizedKeysFile ${o.dir}/authorized_keys`,
    "PubkeyAuthentication yes",
    "PasswordAuthentication yes",
    "PermitEmptyPasswords no",
    "KbdInteractiveAuthentication no",
    "UsePAM no",
    "StrictModes no",
    // Only the test user, and only sFTP: this daemon must not open the machine up.
    "PermitRootLogin no",
    `AllowUsers ${o.user}`,
    "Subsystem sftp internal-sftp",
    "ForceCommand internal-sftp",
    "PermitTTY no",
    "AllowTcpForwarding no",
    "AllowAgentForwarding no",
    "X11Forwarding no",
    "PermitTunnel no",
    "UseDNS no",
    "PrintMotd no",
    "MaxAuthTries 3",
    "LoginGraceTime 30",
    "LogLevel INFO",
    // OpenSSH ≥ 9.8 would lock 127.0.0.1 out after a failed login test.
    ...(o.penalties ? ["PerSourcePenalties no"] : []),
    "",
  ].join("\n");
}

/** Collects a child's stderr; resolves `waitFor` when a line matching the pattern appears. */
export class LogPump {
  text = "";
  readonly done: Promise<void>;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #waiters: { re: RegExp; resolve: () => void }[] = [];

  constructor(stream: ReadableStream<Uint8Array>) {
    const reader = stream.getReader();
    this.#reader = reader;
    const decoder = new TextDecoder();
    this.done = (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          this.text += decoder.decode(value, { stream: true });
          this.#waiters = this.#waiters.filter((w) => {
            if (!w.re.test(this.text)) return true;
            w.resolve();
            return false;
          });
        }
      } catch { /* cancelled */ }
    })();
  }

  /** Resolves once the log so far matches `re`. */
  waitFor(re: RegExp): Promise<void> {
    if (re.test(this.text)) return Promise.resolve();
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiters.push({ re, resolve });
    return promise;
  }

  /** Waits for the end of the stream, at most `ms`; then stops reading. */
  async finish(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((r) => timer = setTimeout(r, ms));
    await Promise.race([this.done, timeout]);
    clearTimeout(timer);
    await this.#reader.cancel().catch(() => {});
    await this.done;
  }
}

/** A listening sshd and its log. */
export type Started = { child: Deno.ChildProcess; pump: LogPump };

/** Spawns sshd on `port`; resolves once it listens, or returns the reason it exited. */
export async function spawnSshd(
  sshd: string,
  configPath: string,
  port: number,
): Promise<Started | { exited: string }> {
  const child = new Deno.Command(sshd, {
    args: ["-D", "-e", "-f", configPath],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const pump = new LogPump(child.stderr);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const outcome = await Promise.race([
    pump.waitFor(new RegExp(`Server listening on 127\\.0\\.0\\.1 port ${port}\\b`)).then(() =>
      "listening" as const
    ),
    child.status.then(() => "exited" as const),
    new Promise<"timeout">((r) => timer = setTimeout(() => r("timeout"), START_TIMEOUT_MS)),
  ]);
  clearTimeout(timer);
  if (outcome === "listening") return { child, pump };
  if (outcome === "timeout") {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  }
  const status = await child.status;
  await pump.finish(1000);
  return {
    exited: `sshd ${
      outcome === "timeout"
        ? `did not listen within ${START_TIMEOUT_MS} ms`
        : `exited ${status.code}`
    }: ${pump.text.trim()}`,
  };
}
