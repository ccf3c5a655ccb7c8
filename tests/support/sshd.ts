/**
 * Test fixture: a real OpenSSH `sshd` (child process, `-D -e -f <config>`) on 127.0.0.1 and a
 * free port, serving sFTP (`internal-sftp`) from its own temp dir with its own ed25519 host key.
 *
 * Login is as a local user of this fixture's own (`bridge-sftp-<pid>-<random>`, see
 * `sshd_system.ts`), by password or by the generated client key. Password login checks the real
 * system password (`UsePAM no` → `/etc/shadow`), so the fixture needs root: each start creates
 * its user with `useradd` (system account, home = the temp dir, shell nologin) and a fresh random
 * password (`chpasswd`); {@link TestSshd.close} deletes it (`userdel`). Nothing else of the system
 * is changed, except that sshd's privilege-separation directory (`/run/sshd` on Debian) is created
 * when missing, as the Debian service would at boot. The daemon only lets its own user in
 * (`AllowUsers`, root login off) and only for sFTP (`ForceCommand internal-sftp`, no TTY, no
 * forwarding).
 *
 * Any number of these fixtures can run at once, in one test process or several: each has its
 * own user, home, port, keys and temp dir.
 *
 * Environment: `SSHD_PATH` (absolute path of sshd, default `/usr/sbin/sshd`).
 * Debian packages: `openssh-server` (sshd), `openssh-client` (ssh-keygen), `passwd`, `procps`.
 * @module
 */
import { freePort } from "./net.ts";
import { type LogPump, spawnSshd, sshdConfig } from "./sshd_process.ts";
import {
  createTestUser,
  removeTestUser,
  run,
  sshdPath,
  sshdUnavailableReason,
} from "./sshd_system.ts";

export { sshdPath, sshdUnavailableReason, TEST_USER_PREFIX } from "./sshd_system.ts";

const BIND_ATTEMPTS = 5;

/** A running sshd. */
export interface TestSshd {
  host: "127.0.0.1";
  port: number;
  /** This fixture's own local user, `bridge-sftp-<pid>-<8 hex>`; deleted by `close`. */
  username: string;
  /** Fresh random password of {@link TestSshd.username}. */
  password: string;
  /** Unencrypted OpenSSH-format ed25519 private key (accepted by ssh2) authorised for login. */
  privateKeyPem: string;
  /** The host key's fingerprint, `SHA256:<43 base64 characters>` as `ssh-keygen -lf` prints it. */
  hostKeySha256: string;
  /** Absolute, empty upload directory writable by {@link TestSshd.username}. */
  dir: string;
  /** sshd's log so far (its stderr): `Accepted password for …`, `Failed password for …`. */
  log(): string;
  /** Stops sshd (the port is then refused); its files stay for {@link TestSshd.restart}. */
  stop(): Promise<void>;
  /** Starts sshd again on the same port with the same keys, after {@link TestSshd.stop}. */
  restart(): Promise<void>;
  /** Stops sshd, awaits its exit status, deletes the user and the temp dir; safe to call twice. */
  close(): Promise<void>;
}

function randomToken(bytes: number): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
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

  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "bridge-sshd-" }));
  let user: string | undefined;
  let child: Deno.ChildProcess | undefined;
  let pump: LogPump | undefined;
  try {
    const { name: username, uid, gid } = await createTestUser(base, password);
    user = username;
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
      await Deno.writeTextFile(
        configPath,
        sshdConfig({ port: 22, dir: base, user: username, penalties }),
      );
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
      await Deno.writeTextFile(
        configPath,
        sshdConfig({ port, dir: base, user: username, penalties }),
      );
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

    let running = child;
    let log = pump;
    const logs: LogPump[] = [];
    let closing: Promise<void> | undefined;
    const stopRunning = async () => {
      try {
        running.kill("SIGTERM");
      } catch { /* already exited */ }
      await running.status;
      // Session processes inherit stderr; they end with their connection.
      await log.finish(5000);
    };
    return {
      host: "127.0.0.1",
      port,
      username,
      password,
      privateKeyPem,
      hostKeySha256,
      dir,
      log: () => [...logs, log].map((l) => l.text).join(""),
      async stop() {
        await stopRunning();
      },
      async restart() {
        logs.push(log);
        const r = await spawnSshd(sshd, configPath, port);
        if ("exited" in r) throw new Error(`sshd did not start again: ${r.exited}`);
        ({ child: running, pump: log } = r);
      },
      close() {
        closing ??= (async () => {
          await stopRunning();
          await removeTestUser(username);
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
    if (user) await removeTestUser(user).catch(() => {});
    await Deno.remove(base, { recursive: true }).catch(() => {});
    throw err;
  }
}
