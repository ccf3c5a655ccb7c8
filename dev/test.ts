/**
 * `deno task test`: the whole suite, its test files in parallel (README.md, "Tests").
 *
 * Three processes at once:
 * - the main run, `deno test --parallel` over `tests/`: up to `DENO_JOBS` modules at a time
 *   (default {@link DEFAULT_JOBS}; most files wait on sockets, sshd or Chromium part of the time,
 *   so more files than cores keep both cores busy). A long file ({@link LONG_FIRST}) runs in an
 *   isolate of its own, the short ones share one per group ({@link GROUPS}, dev/test_groups.ts);
 *   all isolates belong to one process, so files share the process's environment variables,
 *   working directory and the machine: a test file must keep its ports, KV files, temp dirs and
 *   sshd user to itself, must not change `Deno.env` and must leave nothing running when its tests
 *   end (README.md, "Tests");
 * - the waiting run: the files that spend their time waiting on the wall clock (two service
 *   processes waiting for a real `Deno.cron` minute), in parallel with each other, started first
 *   so that their wait overlaps everything else (on a fresh `DENO_DIR` all three start after one
 *   `deno cache` of main.ts and the tests, so their service processes start in time);
 * - the type check of the test files (`deno check tests/`), which `deno test` would otherwise do
 *   before starting any test on one core; the test runs use `--no-check` instead.
 *
 * The main run streams its output as it goes; the waiting run's output and a failed check's
 * output follow it. The exit code is non-zero when a run or the check failed, and the last line
 * sums both runs up ("test: N passed, M failed").
 *
 * Arguments are passed to both test runs (e.g. `--filter`).
 * @module
 */

import { stripVTControlCharacters } from "node:util";
import { basename } from "node:path";
import { type GroupPlan, type TestGroup, writeGroups } from "./test_groups.ts";

/** Test files that mostly wait for real time (a `Deno.cron` minute boundary). */
const WAITING = [
  "tests/integration/pipeline_cron_test.ts",
  "tests/integration/kv_connect_cron_test.ts",
];

/**
 * Test files started first, longest first (wall time in a whole run on the 2-core machine), and
 * where the groups of short integration files start (the entry `"tests/integration/"`):
 * `deno test --parallel` starts its modules in the order given (dev/test_groups.ts), and a long
 * one started last would run alone at the end while the other slots sit idle. These files run
 * alone, each in an isolate of its own. The other files follow: browser tests, then integration,
 * then unit tests (short ones fill the gaps at the end). A file missing from the list only starts
 * later; a listed file that no longer exists is skipped.
 */
const LONG_FIRST = [
  "tests/integration/retention_years_test.ts",
  "tests/e2e/console_phone_e2e_test.ts",
  "tests/e2e/console_days_e2e_test.ts",
  "tests/integration/",
  "tests/e2e/console_attention_e2e_test.ts",
  "tests/e2e/console_narrow_e2e_test.ts",
  "tests/integration/pipeline_part2_test.ts",
  "tests/e2e/console_intraday_e2e_test.ts",
  "tests/e2e/console_e2e_test.ts",
  "tests/e2e/console_pipeline_e2e_test.ts",
  "tests/integration/replicas_contention_test.ts",
  "tests/integration/kv_connect_replicas_test.ts",
  "tests/e2e/console_passes_e2e_test.ts",
  "tests/integration/access_matrix_test.ts",
  "tests/integration/prometheus_scrape_test.ts",
  "tests/integration/pipeline_failures_test.ts",
  "tests/e2e/console_schedules_e2e_test.ts",
  "tests/integration/sftp_test.ts",
  "tests/integration/demo_test.ts",
];

/** Order of the rest by folder (see {@link LONG_FIRST}). */
const FOLDER_ORDER = ["tests/e2e/", "tests/integration/", "tests/support/", "tests/unit/"];

/** Every test file under `tests/` (`*_test.ts`, `*_test.tsx`), in the order they start. */
async function testFiles(): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (/_test\.tsx?$/.test(e.name)) found.push(path);
    }
  };
  await walk("tests");
  const rank = (f: string) => {
    const i = LONG_FIRST.indexOf(f);
    if (i >= 0) return i;
    const grouped = LONG_FIRST.findIndex((d) => d.endsWith("/") && f.startsWith(d));
    if (grouped >= 0) return grouped;
    const folder = FOLDER_ORDER.findIndex((d) => f.startsWith(d));
    return LONG_FIRST.length + (folder < 0 ? FOLDER_ORDER.length : folder);
  };
  return found
    .filter((f) => !WAITING.includes(f))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Test files run at the same time by the main run unless `DENO_JOBS` says otherwise. */
const DEFAULT_JOBS = 4;

const PERMISSIONS = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-sys",
];

const jobs = Deno.env.get("DENO_JOBS") || String(DEFAULT_JOBS);

const spawn = (args: string[]) =>
  new Deno.Command(Deno.execPath(), {
    args,
    env: { DENO_JOBS: jobs },
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();

/**
 * True when Deno's npm cache (in `DENO_DIR`, else the default) holds no registry metadata yet: a
 * fresh cache. Read from `deno info --json`; a layout it does not know counts as fresh (then the
 * run only caches once more than needed).
 */
async function freshCache(): Promise<boolean> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  try {
    const { npmCache } = JSON.parse(new TextDecoder().decode(out.stdout)) as { npmCache: string };
    await Deno.stat(`${npmCache}/registry.npmjs.org/hono/registry.json`);
    return false;
  } catch {
    return true;
  }
}

/** `N passed` and `N failed` of a `deno test` summary line, 0 when absent. */
function counts(text: string): { passed: number; failed: number } {
  const plain = stripVTControlCharacters(text);
  const line = plain.split("\n").reverse().find((l) => /\d+ passed.*\d+ failed/.test(l)) ?? "";
  return {
    passed: Number(/(\d+) passed/.exec(line)?.[1] ?? 0),
    failed: Number(/(\d+) failed/.exec(line)?.[1] ?? 0),
  };
}

/** Copies a stream to `out` while keeping its text. */
async function tee(stream: ReadableStream<Uint8Array>, out: { write(b: Uint8Array): unknown }) {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    await out.write(chunk);
    text += decoder.decode(chunk, { stream: true });
  }
  return text;
}

/**
 * Test files that must not share an isolate with other files (none today): they run alone like
 * the files of {@link LONG_FIRST}, after them.
 */
const ALONE: string[] = [];

/** Short files share an isolate per group ({@link writeGroups}); the long ones keep their own. */
const GROUPS: GroupPlan = {
  groups: { "tests/integration/": 8, "tests/unit/": 2 },
  alone: [...LONG_FIRST, ...ALONE],
};

/**
 * Deno's op and resource sanitizers, off by default since Deno 2.8
 * (docs.deno.com/runtime/test/sanitizers): a test that leaves a timer, a request or a file open
 * fails, instead of disturbing the next file of its group. A test may still opt out.
 */
const SANITIZERS = ["--sanitize-ops", "--sanitize-resources"];

const groupDir = await Deno.makeTempDir({ prefix: "bridge-test-groups-" });
const removeGroups = () => Deno.remove(groupDir, { recursive: true }).catch(() => {});
Deno.addSignalListener("SIGINT", async () => {
  await removeGroups();
  Deno.exit(130);
});
let modules: TestGroup[];
try {
  modules = await writeGroups(await testFiles(), GROUPS, groupDir);
} catch (e) {
  await removeGroups();
  throw e;
}

const testArgs = ["test", "--no-check", ...SANITIZERS, ...PERMISSIONS, ...Deno.args];
if (await freshCache()) {
  // A fresh DENO_DIR: the three runs would each download the npm packages' metadata at once, and
  // the service processes the waiting files start (30 s to listen) would wait on the lock of
  // node_modules meanwhile. One `deno cache` of everything first; every child inherits DENO_DIR.
  console.log("fresh Deno cache: caching the modules of main.ts and the tests first");
  await spawn(["cache", "main.ts", ...await testFiles()]).output();
}
// In parallel: the waiting files wait for the same minute boundary.
const waitingOutput = spawn([...testArgs, "--parallel", ...WAITING]).output();
const checkOutput = spawn(["check", "tests/"]).output();
const main = spawn([...testArgs, "--parallel", ...modules.map((m) => m.path)]);
const [mainOut] = await Promise.all([
  tee(main.stdout, Deno.stdout),
  tee(main.stderr, Deno.stderr),
]).finally(removeGroups);
const mainStatus = await main.status;
if (!mainStatus.success) {
  // Which files shared an isolate: a failure that depends on its neighbours can be rerun with them.
  console.log("\nthe groups of this run (each imports these files into one isolate):");
  for (const m of modules.filter((m) => m.files.length > 1)) {
    console.log(`  ${basename(m.path)}: ${m.files.join(" ")}`);
  }
}
const rest = await waitingOutput;
await Deno.stdout.write(rest.stdout);
await Deno.stderr.write(rest.stderr);
const check = await checkOutput;
if (!check.success) {
  await Deno.stderr.write(check.stderr);
  await Deno.stderr.write(check.stdout);
  console.log("type check of tests/ failed (see above)");
}

const a = counts(mainOut);
const b = counts(new TextDecoder().decode(rest.stdout));
const ok = mainStatus.success && rest.success && check.success;
console.log(`test: ${a.passed + b.passed} passed, ${a.failed + b.failed} failed`);
Deno.exit(ok ? 0 : 1);
