/**
 * What the sshd fixture (`sshd.ts`) needs from the machine: sshd and ssh-keygen, the account
 * tools, root, and a local user of its own for each started sshd ({@link createTestUser}).
 *
 * Every fixture gets its own user `bridge-sftp-<pid>-<random>` (home: the fixture's temp dir),
 * created on start and deleted on close, so test files running at the same time (`deno test
 * --parallel`, or several checkouts on one machine) never reset each other's password. Users left
 * behind by a test process that died (its pid no longer runs) are deleted by the next start.
 * @module
 */

/** Start of the name of every local account the fixture creates. */
export const TEST_USER_PREFIX = "bridge-sftp-";
const TEST_USER_RE = /^bridge-sftp-(\d+)-[0-9a-f]+$/;

const DEFAULT_SSHD = "/usr/sbin/sshd";
const TOOL_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

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

/** The absolute path of the tool `name` on PATH or in the usual system directories. */
export function findTool(name: string): string | undefined {
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
    for (const tool of ["useradd", "userdel", "chpasswd", "id"]) {
      if (!findTool(tool)) return `${tool} not found (apt-get install passwd)`;
    }
    if (!findTool("kill")) return "kill not found (apt-get install procps)";
  } catch (err) {
    return `cannot look for sshd: ${(err as Error).message} (run with --allow-read --allow-env)`;
  }
  try {
    if (Deno.uid() !== 0) {
      return `sshd password login needs root (to create a test user ${TEST_USER_PREFIX}…); running as uid ${Deno.uid()}`;
    }
  } catch {
    return "cannot read the uid (run with --allow-sys)";
  }
  return undefined;
}

/** Runs a tool to completion; returns its output, or throws with its stderr. */
export async function run(
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

/**
 * {@link run} for the account tools: retried while another process holds the lock of
 * `/etc/passwd` or `/etc/shadow` (parallel test files create and delete users at the same time).
 */
async function runLocked(
  name: string,
  args: string[],
  opts: { stdin?: string; okCodes?: number[] } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  for (let attempt = 1;; attempt++) {
    try {
      return await run(name, args, opts);
    } catch (err) {
      if (attempt >= 20 || !/lock/i.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

/** Deletes the fixture's users whose test process (the pid in the name) no longer runs. */
async function removeStaleTestUsers(): Promise<void> {
  const passwd = await Deno.readTextFile("/etc/passwd");
  for (const line of passwd.split("\n")) {
    const name = line.split(":")[0];
    const pid = TEST_USER_RE.exec(name)?.[1];
    if (!pid || Number(pid) === Deno.pid) continue;
    if ((await run("kill", ["-0", pid], { okCodes: [0, 1] })).code === 0) continue;
    // A leftover still in use (an orphaned session) stays for a later start.
    await removeTestUser(name).catch(() => {});
  }
}

let staleRemoved: Promise<void> | undefined;

/**
 * Creates a fresh local user for one sshd fixture: system account, home `home` (not created),
 * shell nologin, password `password`.
 * @returns its name (`bridge-sftp-<pid>-<8 hex>`, at most 32 characters), uid and gid
 * @throws {Error} when an account tool fails (with its stderr)
 */
export async function createTestUser(
  home: string,
  password: string,
): Promise<{ name: string; uid: number; gid: number }> {
  staleRemoved ??= removeStaleTestUsers();
  await staleRemoved;
  const suffix = Array.from(
    crypto.getRandomValues(new Uint8Array(4)),
    (x) => x.toString(16).padStart(2, "0"),
  ).join("");
  const name = `${TEST_USER_PREFIX}${Deno.pid}-${suffix}`;
  await runLocked("useradd", [
    "--system",
    "--no-create-home",
    "--home-dir",
    home,
    "--shell",
    findTool("nologin") ?? "/usr/sbin/nologin",
    "--comment",
    "scheduling-bridge sFTP tests",
    name,
  ]);
  try {
    await runLocked("chpasswd", [], { stdin: `${name}:${password}\n` });
    const uid = Number((await run("id", ["-u", name])).stdout.trim());
    const gid = Number((await run("id", ["-g", name])).stdout.trim());
    return { name, uid, gid };
  } catch (err) {
    await removeTestUser(name).catch(() => {});
    throw err;
  }
}

/**
 * Deletes a user made by {@link createTestUser} (and its group); nothing when it is gone already.
 * @throws {Error} when `userdel` fails otherwise
 */
export async function removeTestUser(name: string): Promise<void> {
  if (!TEST_USER_RE.test(name)) throw new Error(`not a test user: ${name}`);
  // 6 = no such user. No --force: a user still running processes is an error worth seeing.
  await runLocked("userdel", [name], { okCodes: [0, 6] });
}
