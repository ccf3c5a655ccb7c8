/**
 * Test fixture: Debian's `sqlite3` command-line shell, which `deploy/backup.sh` drives
 * (docs/backup.md). Backup tests run when `/usr/bin/sqlite3` (or `SQLITE3_PATH`) exists; without
 * it they are skipped with a printed reason, unless `REQUIRE_E2E=1` (set by `.ci/run`): then they
 * run and fail.
 * @module
 */
import { REQUIRE_E2E } from "./chromium.ts";

/** The sqlite3 binary. */
export const SQLITE3_PATH = Deno.env.get("SQLITE3_PATH") ?? "/usr/bin/sqlite3";

function sqlite3Missing(): string | null {
  try {
    return Deno.statSync(SQLITE3_PATH).isFile ? null : `${SQLITE3_PATH} is not a file`;
  } catch {
    return `${SQLITE3_PATH} not found (apt-get install -y sqlite3)`;
  }
}

/**
 * Whether to register the backup tests as ignored. Prints the reason when skipping; with
 * `REQUIRE_E2E=1` never skips (the script then fails the test).
 */
export function skipSqlite3Tests(suite: string): boolean {
  const missing = sqlite3Missing();
  if (!missing || REQUIRE_E2E) return false;
  console.log(`SKIP ${suite}: ${missing}; set REQUIRE_E2E=1 to make this a failure.`);
  return true;
}

/** The outcome of one `deploy/backup.sh` run. */
export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `deploy/backup.sh <args>` with {@link SQLITE3_PATH} (or `sqlite3` as given). */
export async function backupScript(args: string[], sqlite3 = SQLITE3_PATH): Promise<ScriptRun> {
  const script = new URL("../../deploy/backup.sh", import.meta.url).pathname;
  const out = await new Deno.Command("bash", {
    args: [script, ...args],
    env: { SQLITE3: sqlite3 },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}
