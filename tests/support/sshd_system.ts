/**
 * What the sshd fixture (`sshd.ts`) needs from the machine: sshd and ssh-keygen, the account
 * tools, root, and the dedicated local user {@link TEST_USER} with a fresh password.
 * @module
 */

/** The local account sFTP logins use. */
export const TEST_USER = "bridge-sftp-test";

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

/** Creates {@link TEST_USER} when missing and gives it `password`; returns its uid and gid. */
export async function ensureTestUser(password: string): Promise<{ uid: number; gid: number }> {
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
