/**
 * `deno task test` groups short test files into shared isolates (dev/test_groups.ts): which files
 * are grouped, how they are dealt, and that a written group module imports exactly its files.
 */
import assert from "node:assert/strict";
import { writeGroups } from "../../dev/test_groups.ts";
import { tempDir } from "../support/temp.ts";

const FILES = [
  "tests/e2e/a_e2e_test.ts",
  "tests/integration/long_test.ts",
  "tests/integration/a_test.ts",
  "tests/integration/b_test.ts",
  "tests/integration/c_test.ts",
  "tests/unit/x_test.ts",
  "tests/unit/y_test.tsx",
  "tests/support/self_test.ts",
];

/** Runs `deno test --no-check <args>` without colours; its exit status and standard output. */
async function denoTest(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["test", "--no-check", ...args],
    env: { NO_COLOR: "1", ...env },
  }).output();
  return { success: out.success, text: new TextDecoder().decode(out.stdout) };
}

Deno.test("test groups: dealt round-robin per folder, the rest alone, all in start order in one folder", async () => {
  await using tmp = await tempDir("test-groups-");
  const modules = await writeGroups(FILES, {
    groups: { "tests/integration/": 2, "tests/unit/": 3 },
    alone: ["tests/integration/long_test.ts"],
  }, tmp.path);
  // A file alone where it was given, a group where its first file was; the empty third unit
  // group is not written.
  assert.deepEqual(modules.map((g) => [g.path.slice(tmp.path.length + 1), g.files]), [
    ["tests-e2e-a_e2e_test.ts", ["tests/e2e/a_e2e_test.ts"]],
    ["tests-integration-long_test.ts", ["tests/integration/long_test.ts"]],
    ["tests-integration-1_test.ts", ["tests/integration/a_test.ts", "tests/integration/c_test.ts"]],
    ["tests-integration-2_test.ts", ["tests/integration/b_test.ts"]],
    ["tests-unit-1_test.ts", ["tests/unit/x_test.ts"]],
    ["tests-unit-2_test.ts", ["tests/unit/y_test.tsx"]],
    ["tests-support-self_test.ts", ["tests/support/self_test.ts"]],
  ]);
  const names = [...Deno.readDirSync(tmp.path)].map((e) => e.name).sort();
  assert.deepEqual(names, modules.map((g) => g.path.slice(tmp.path.length + 1)).sort());
  const text = await Deno.readTextFile(modules[2].path);
  const cwd = new URL(`file://${Deno.cwd()}/`);
  assert.deepEqual([...text.matchAll(/^import "([^"]+)";$/gm)].map((m) => m[1]), [
    new URL("tests/integration/a_test.ts", cwd).href,
    new URL("tests/integration/c_test.ts", cwd).href,
  ]);
});

Deno.test("test groups: a group module runs the tests of every file it imports", async () => {
  await using tmp = await tempDir("test-groups-run-");
  for (const n of ["one", "two"]) {
    await Deno.writeTextFile(
      `${tmp.path}/${n}_test.ts`,
      `Deno.test("${n} passes", () => {});\nDeno.test("${n} fails", () => { throw new Error("${n}"); });\n`,
    );
  }
  const files = ["one", "two"].map((n) => `${tmp.path}/${n}_test.ts`);
  const groups = await writeGroups(
    files,
    { groups: { [`${tmp.path}/`]: 1 }, alone: [] },
    tmp.path,
  );
  assert.equal(groups.length, 1);
  const { success, text } = await denoTest([groups[0].path]);
  assert.equal(success, false);
  assert.match(text, /running 4 tests from /);
  assert.match(text, /2 passed \| 2 failed/);
  // A failure names the file that declared the test, not the group.
  assert.match(text, /one fails => \S*\/one_test\.ts:2:6/);
  assert.match(text, /two fails => \S*\/two_test\.ts:2:6/);
});

Deno.test("test groups: deno test --parallel starts the modules of one folder in the order given", async () => {
  await using tmp = await tempDir("test-groups-order-");
  await Deno.mkdir(`${tmp.path}/src/deeper`, { recursive: true });
  const files = ["zulu", "deeper/alpha", "mike", "deeper/bravo"].map((n) => {
    const path = `${tmp.path}/src/${n}_test.ts`;
    Deno.writeTextFileSync(path, `console.log("start ${n}");\nDeno.test("${n}", () => {});\n`);
    return path;
  });
  const modules = await writeGroups(files, { groups: {}, alone: [] }, tmp.path);
  const { success, text } = await denoTest(["--parallel", ...modules.map((m) => m.path)], {
    DENO_JOBS: "1",
  });
  assert.ok(success, text);
  assert.deepEqual([...text.matchAll(/^start (\S+)$/gm)].map((m) => m[1]), [
    "zulu",
    "deeper/alpha",
    "mike",
    "deeper/bravo",
  ]);
});

Deno.test("test groups: two files that would get one module name are refused, in words", async () => {
  await using tmp = await tempDir("test-groups-clash-");
  await assert.rejects(
    writeGroups(
      ["tests/a-b/c_test.ts", "tests/a/b-c_test.ts"],
      { groups: {}, alone: [] },
      tmp.path,
    ),
    /two test modules would be written to .*tests-a-b-c_test\.ts; rename tests\/a\/b-c_test\.ts/,
  );
});
