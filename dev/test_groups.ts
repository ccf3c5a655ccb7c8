/**
 * Groups of short test files that share one isolate in `deno task test` (README.md, "Tests";
 * docs/test-speed.md).
 *
 * `deno test` runs each test file in an isolate of its own. Starting one costs about 0.05 CPU s
 * before any module loads, and a file that imports the service then loads some 170 modules
 * (~0.3 CPU s): over the ~130 short files that was a fifth of the suite's CPU. A group is a
 * generated module that imports several test files, so their tests register and run in one
 * isolate, one file after another, and the modules they share load once (what Vitest calls
 * `isolate: false`, vitest.dev/config/#isolate). Each test keeps its name, its sanitizers
 * (dev/test.ts turns Deno's op and resource sanitizers on; they are off by default since Deno 2.8,
 * docs.deno.com/runtime/test/sanitizers) and, when it fails, the location of its own `Deno.test`
 * call in its own file.
 *
 * What a grouped file must not rely on: being the only file in its isolate. It restores any
 * global it replaces before its test ends and leaves no timer, server or child process running
 * (the sanitizers of the next file's tests would see it), as README.md, "Tests", asks of every
 * file anyway. A file that cannot keep to this stays out of the groups (`alone`).
 * @module
 */

import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** Which files to group, and into how many groups per folder. */
export interface GroupPlan {
  /** Folder prefix (e.g. `tests/unit/`) → number of groups its files are dealt into. */
  groups: Record<string, number>;
  /** Files that keep an isolate of their own even inside a grouped folder. */
  alone: readonly string[];
}

/** A module written to disk and the test files it imports. */
export interface TestGroup {
  /**
   * Absolute path of the generated module: `<dir>/<folder>-<n>_test.ts` for a group,
   * `<dir>/<file's path with / as ->` for a file alone (e.g. `tests-e2e-console_e2e_test.ts`).
   */
  path: string;
  /** Test files it imports, as given. */
  files: string[];
}

/**
 * Deals the files of each grouped folder round-robin (in the order given) into that folder's
 * groups and writes one module per group into `dir`, and one module per file that runs alone.
 *
 * Every module is written into the one folder `dir` because `deno test --parallel` keeps the
 * order it is given only among files of one folder (measured with Deno 2.9: files of different
 * folders start in an order of their own). The modules come back in start order: a file alone
 * where it was given, a group where its first file was.
 * @param files test files, relative to the working directory or absolute, in the order they start
 * @throws Error when two modules would get the same name (e.g. `tests/a-b/c_test.ts` and
 *   `tests/a/b-c_test.ts` when both run alone)
 */
export async function writeGroups(
  files: readonly string[],
  plan: GroupPlan,
  dir: string,
): Promise<TestGroup[]> {
  const dealt = new Map<string, { bins: string[][]; next: number }>();
  const binOf = new Map<string, { name: string; bin: string[] }>();
  for (const file of files) {
    const folder = Object.keys(plan.groups).find((f) => file.startsWith(f));
    if (!folder || plan.alone.includes(file)) continue;
    let d = dealt.get(folder);
    if (!d) {
      d = { bins: Array.from({ length: Math.max(1, plan.groups[folder]) }, () => []), next: 0 };
      dealt.set(folder, d);
    }
    const i = d.next++ % d.bins.length;
    d.bins[i].push(file);
    binOf.set(file, { name: `${slug(folder)}-${i + 1}_test.ts`, bin: d.bins[i] });
  }
  const modules: TestGroup[] = [];
  const written = new Set<string[]>();
  for (const file of files) {
    const grouped = binOf.get(file);
    if (grouped && written.has(grouped.bin)) continue;
    const { name, bin } = grouped ?? { name: slug(file), bin: [file] };
    written.add(bin);
    const path = `${dir}/${name}`;
    if (modules.some((m) => m.path === path)) {
      throw new Error(`two test modules would be written to ${path}; rename ${bin.join(", ")}`);
    }
    const imports = bin.map((f) => `import ${JSON.stringify(pathToFileURL(resolve(f)).href)};`);
    const what = bin.length === 1 ? "1 test file" : `${bin.length} test files in one isolate`;
    await Deno.writeTextFile(path, `// Written by dev/test.ts: ${what}.\n${imports.join("\n")}\n`);
    modules.push({ path, files: bin });
  }
  return modules;
}

/** A path as one file name: `tests/unit/` → `tests-unit`, `/tmp/a_test.ts` → `tmp-a_test.ts`. */
function slug(path: string): string {
  return path.replace(/^\/+|\/+$/g, "").replaceAll("/", "-");
}
