/**
 * Test fixture: a real OpenSSH `sshd` (child process, `-D -e -f <config>`) on 127.0.0.1 and a
 * free port, serving sFTP (`internal-sftp`) from its own temp dir with its own ed25519 host key.
 *
 * Login is as the dedicated local user {@link TEST_USER} (`bridge-sftp-test`), by password or by
 * the generated client key. Password login checks the real system password (`UsePAM no` →
 * `/etc/shadow`), so the fixture needs root: on first use it creates that user with `useradd`
 * (system account, no home, shell `/usr/sbin/nologin`) and on every start sets a fresh random
 * password with `chpasswd`. Nothing else of the system is changed, except that sshd's
 * privilege-separation directory (`/run/sshd` on Debian) is created when missing, as the Debian
 * service would at boot. The daemon only lets {@link TEST_USER} in (`AllowUsers`, root login
 * off) and only for sFTP (`ForceCommand internal-sftp`, no TTY, no forwarding).
 *
 * Environment: `SSHD_PATH` (absolute path of sshd, default `/usr/sbin/sshd`).
 * Debian packages: `openssh-server` (sshd) and `openssh-client` (ssh-keygen).
 *
 * Two test processes starting this fixture at the same moment on one machine would reset each
 * other's password; the test files using it run their tests one after the other.
 * @module
 */

/** The local account sFTP logins use. */
export const TEST_USER = "bridge-sftp-test";

const DEFAULT_SSHD = "/usr/sbin/sshd";
const TOOL_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];
const START_TIMEOUT_MS = 10_000;
const BIND_ATTEMPTS = 5;

/** A running sshd. */
export interface TestSshd {
  host: "127.0.0.1";
  port: number;
  /** {@link TEST_USER}. */
  username: string;
  /** Fresh random password of {@link TEST_USER}, valid until the next start. */
  password: string;
  /** Unencrypted OpenSSH-format ed25519 private key (accepted by ssh2) authorised for login. */
  privateKeyPem: string;
  /** The host key's fingerprint, `SHA256:<43 base64 characters>` as `ssh-keygen -lf` prints it. */
  hostKeySha256: string;
  /** Absolute, empty upload directory writable by {@link TEST_USER}. */
  dir: string;
  /** sshd's log so far (its stderr): `Accepted password for …`, `Failed password for …`. */
  log(): string;
  /** Stops sshd, awaits its exit status and removes the temp dir; safe to call twice. */
  close(): Promise<void>;
}

/** Absolute path of sshd: `SSHD_PATH`, else `/usr/sbin/sshd`. */
export function sshdPath(): string {
  return Deno.env.get("SSHD_PATH") || DEFAULT_SSHD;
}

function isExecutable(path: string): boolean {
  try {
    const st = Deno.statSync(path);
    return st.isFile && ((st.mode ?? 0o111) & 0o111) !== 0;
  } catch {
    return false;
  }
}

function findTool(name: string): string | undefined {
  const dirs = [...(Deno.env.get("PATH") ?? "").split(":").filter(Boolean), ...TOOL_DIRS];
  return dirs.map((d) => `${d}/${name}`).find(isExecutable);
}

/**
 * Why {@link startSshd} cannot work here, or `undefined` when it can.
 * @returns e.g. `"sshd not installed at /usr/sbin/sshd (apt-get install openssh-server)"`
 */
export function sshdUnavailableReason(): string | undefined {
  if (Deno.build.os === "windows") return "sshd fixture needs a POSIX system";
  let sshd: string;
  try {
    sshd = sshdPath();
  } catch {
    return "cannot read SSHD_PATH (run with --allow-env)";
  }
  if (!sshd.startsWith("/")) return `SSHD_PATH must be an absolute path, got ${sshd}`;
  try {
    if (!isExecutable(sshd)) {
      return `sshd not installed at ${sshd} (apt-get install openssh-server, or set SSHD_PATH)`;
    }
    if (!findTool("ssh-keygen")) {
      return "ssh-keygen not installed (apt-get install openssh-client)";
    }
    for (const tool of ["useradd", "chpasswd", "id"]) {
      if (!findTool(tool)) return `${tool} not found (apt-get install passwd)`;
    }
  } catch (err) {
    return `cannot look for sshd: ${(err as Error).message} (run with --allow-read --allow-env)`;
  }
  try {
    if (Deno.uid() !== 0) {
      return `sshd password login needs root (to create the test user ${TEST_USER}); running as uid ${Deno.uid()}`;
    }
  } catch {
    return "cannot read the uid (run with --allow-sys)";
  }
  return undefined;
}

/** Runs a tool to completion; returns its output, or throws with its stderr. */
async function run(
  name: string,
  args: string[],
  opts: { stdin?: string; okCodes?: number[] } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const path = findTool(name) ?? name;
  const child = new Deno.Command(path, {
    args,
    stdin: opts.stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (opts.stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(opts.stdin));
    await w.close();
  }
  const out = await child.output();
  const res = {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
  if (!(opts.okCodes ?? [0]).includes(out.code)) {
    throw new Error(`${name} ${args.join(" ")} exited ${out.code}: ${res.stderr.trim()}`);
  }
  return res;
}

/** Creates {@link TEST_USER} when missing and gives it `password`; returns its uid and gid. */
async function ensureTestUser(password: string): Promise<{ uid: number; gid: number }> {
  if ((await run("id", ["-u", TEST_USER], { okCodes: [0, 1] })).code !== 0) {
    // 9 = the name exists already (another process created it a moment ago)
    await run("useradd", [
      "--system",
      "--no-create-home",
      "--home-dir",
      "/nonexistent",
      "--shell",
      findTool("nologin") ?? "/usr/sbin/nologin",
      "--comment",
      "scheduling-bridge sFTP tests",
      TEST_USER,
    ], { okCodes: [0, 9] });
  }
  await run("chpasswd", [], { stdin: `${TEST_USER}:${password}\n` });
  const uid = Number((await run("id", ["-u", TEST_USER])).stdout.trim());
  const gid = Number((await run("id", ["-g", TEST_USER])).stdout.trim());
  return { uid, gid };
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

function randomToken(bytes: number): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

function sshdConfig(
  o: { port: number; dir: string; penalties: boolean },
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
    `AllowUsers ${TEST_USER}`,
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
class LogPump {
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

type Started = { child: Deno.ChildProcess; pump: LogPump };

/** Spawns sshd on `port`; resolves once it listens, or returns the reason it exited. */
async function spawnSshd(
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

/**
 * Starts sshd (see the module doc). Call {@link sshdUnavailableReason} first to skip cleanly.
 * @throws {Error} with the reason when sshd is unavailable or does not come up
 */
export async function startSshd(): Promise<TestSshd> {
  const unavailable = sshdUnavailableReason();
  if (unavailable) throw new Error(unavailable);
  const sshd = sshdPath();
  const password = `pw-${randomToken(18)}`;
  const { uid, gid } = await ensureTestUser(password);

  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "bridge-sshd-" }));
  let child: Deno.ChildProcess | undefined;
  let pump: LogPump | undefined;
  try {
    // The user reads authorized_keys and writes uploads, so it must traverse the dir.
    await Deno.chmod(base, 0o755);
    const dir = `${base}/upload`;
    await Deno.mkdir(dir);
    await Deno.chown(dir, uid, gid);
    await Deno.chmod(dir, 0o755);
    const hostKey = `${base}/ssh_host_ed25519_key`;
    const clientKey = `${base}/client_ed25519_key`;
    await run("ssh-keygen", [
      "-q",
      "-t",
      "ed25519",
      "-N",
      "",
      "-C",
      "bridge-test-host",
      "-f",
      hostKey,
    ]);
    await run("ssh-keygen", [
      "-q",
      "-t",
      "ed25519",
      "-N",
      "",
      "-C",
      "bridge-test-client",
      "-f",
      clientKey,
    ]);
    await Deno.writeTextFile(
      `${base}/authorized_keys`,
      await Deno.readTextFile(`${clientKey}.pub`),
    );
    await Deno.chmod(`${base}/authorized_keys`, 0o644);
    const privateKeyPem = await Deno.readTextFile(clientKey);
    const fp = (await run("ssh-keygen", ["-l", "-E", "sha256", "-f", `${hostKey}.pub`])).stdout;
    const hostKeySha256 = /SHA256:[A-Za-z0-9+/]{43}/.exec(fp)?.[0];
    if (!hostKeySha256) throw new Error(`unexpected ssh-keygen -lf output: ${fp.trim()}`);

    // Validate the config once: creates the privilege-separation dir if sshd misses it and
    // drops PerSourcePenalties on versions that do not know it (< 9.8).
    const configPath = `${base}/sshd_config`;
    let penalties = true;
    for (let i = 0;; i++) {
      await Deno.writeTextFile(configPath, sshdConfig({ port: 22, dir: base, penalties }));
      const t = await run(sshd, ["-t", "-f", configPath], { okCodes: [0, 255] });
      if (t.code === 0) break;
      const privsep = /Missing privilege separation directory: (\/\S+)/.exec(t.stderr)?.[1];
      if (i < 3 && privsep) {
        await Deno.mkdir(privsep, { recursive: true, mode: 0o755 });
      } else if (i < 3 && penalties && /PerSourcePenalties/.test(t.stderr)) {
        penalties = false;
      } else {
        throw new Error(`sshd -t rejected the test config: ${t.stderr.trim()}`);
      }
    }

    let lastFailure = "";
    let port = 0;
    for (let attempt = 0; attempt < BIND_ATTEMPTS && !child; attempt++) {
      port = freePort();
      await Deno.writeTextFile(configPath, sshdConfig({ port, dir: base, penalties }));
      const r = await spawnSshd(sshd, configPath, port);
      if ("exited" in r) {
        lastFailure = r.exited;
        // Another process took the port between our probe and sshd's bind: try another.
        if (!/Address already in use|Cannot bind any address/.test(r.exited)) break;
      } else {
        ({ child, pump } = r);
      }
    }
    if (!child || !pump) throw new Error(`sshd did not start: ${lastFailure}`);

    const running = child;
    const log = pump;
    let closing: Promise<void> | undefined;
    return {
      host: "127.0.0.1",
      port,
      username: TEST_USER,
      password,
      privateKeyPem,
      hostKeySha256,
      dir,
      log: () => log.text,
      close() {
        closing ??= (async () => {
          try {
            running.kill("SIGTERM");
          } catch { /* already exited */ }
          await running.status;
          // Session processes inherit stderr; they end with their connection.
          await log.finish(5000);
          await Deno.remove(base, { recursive: true });
        })();
        return closing;
      },
    };
  } catch (err) {
    if (child) {
      try {
        child.kill("SIGKILL");
      } catch { /* already exited */ }
      await child.status;
    }
    await pump?.finish(1000);
    await Deno.remove(base, { recursive: true }).catch(() => {});
    throw err;
  }
}
