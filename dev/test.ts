/**
 * `deno task test`: the whole suite in two `deno test` processes at once. The tests that spend
 * their time waiting on the wall clock — two service processes waiting for a real `Deno.cron`
 * minute — run beside the rest instead of after it; they use their own KV files and ports and
 * almost no CPU while they wait. The main run streams its output as it goes; the waiting run's
 * output follows it. The exit code is non-zero when either run failed, and the last line sums
 * both runs up ("test: N passed, M failed").
 *
 * Arguments are passed to both runs (e.g. `--filter`).
 * @module
 */

import { stripVTControlCharacters } from "node:util";

/** Test files that mostly wait for real time (a `Deno.cron` minute boundary). */
const WAITING = ["tests/integration/pipeline_cron_test.ts"];

const PERMISSIONS = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  "--allow-run",
  "--allow-sys",
];

const run = (paths: string[], extra: string[]) =>
  new Deno.Command(Deno.execPath(), {
    args: ["test", ...PERMISSIONS, ...Deno.args, ...extra, ...paths],
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();

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

const waiting = run(WAITING, []);
const waitingOutput = waiting.output();
const main = run(["tests/"], [`--ignore=${WAITING.join(",")}`]);
const [mainOut] = await Promise.all([
  tee(main.stdout, Deno.stdout),
  tee(main.stderr, Deno.stderr),
]);
const mainStatus = await main.status;
const rest = await waitingOutput;
await Deno.stdout.write(rest.stdout);
await Deno.stderr.write(rest.stderr);

const a = counts(mainOut);
const b = counts(new TextDecoder().decode(rest.stdout));
const ok = mainStatus.success && rest.success;
console.log(`test: ${a.passed + b.passed} passed, ${a.failed + b.failed} failed`);
Deno.exit(ok ? 0 : 1);
