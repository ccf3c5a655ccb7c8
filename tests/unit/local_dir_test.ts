/**
 * File-system errors of the local directories in words (docs/console.md, "Errors in words"):
 * the runtime's permission error (`NotCapable`, "run again with the --allow-write flag") and
 * the OS's (`PermissionDenied`) both read "the service may not write to /…"; a real `NotCapable`
 * from a process started without write permission for the outbox.
 */
import assert from "node:assert/strict";
import { checkWritableDir, dirProblem, LocalDirError } from "../../lib/adapters/local_dir.ts";
import { writeToOutbox } from "../../lib/adapters/outbox.ts";

const sentence = (dir: string) =>
  `the service may not write to ${dir}: check the directory and the permissions of the service's user`;

Deno.test("dirProblem: permission errors of the runtime and the OS in words; other errors left alone", () => {
  const capable = new Deno.errors.NotCapable(
    'Requires write access to "/srv/out", run again with the --allow-write flag',
  );
  assert.equal(dirProblem(capable, "/srv/out"), sentence("/srv/out"));
  assert.equal(
    dirProblem(new Deno.errors.PermissionDenied("Permission denied (os error 13)"), "/srv/out"),
    sentence("/srv/out"),
  );
  assert.equal(
    dirProblem(new Error("Read-only file system (os error 30)"), "/srv/out"),
    "/srv/out is on a read-only file system: choose a writable directory",
  );
  assert.equal(dirProblem(new TypeError("boom"), "/srv/out"), null);
  assert.equal(dirProblem(capable, "relative/out"), sentence(`${Deno.cwd()}/relative/out`));
});

Deno.test("checkWritableDir: /sys refuses, a file is no directory, a new directory is created", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bridge-localdir-" });
  try {
    assert.equal(await checkWritableDir("/sys/bridge-probe"), sentence("/sys/bridge-probe"));
    await Deno.writeTextFile(`${dir}/f`, "");
    assert.match(await checkWritableDir(`${dir}/f`) ?? "", /is a file or lies below a file/);
    assert.equal(await checkWritableDir(`${dir}/a/b`), null);
    assert.deepEqual([...Deno.readDirSync(`${dir}/a/b`)], [], "the probe file is removed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeToOutbox in a process without write permission there: LocalDirError in words", async () => {
  const allowed = await Deno.makeTempDir({ prefix: "bridge-allowed-" });
  const denied = await Deno.makeTempDir({ prefix: "bridge-denied-" });
  try {
    const script = `${allowed}/write.ts`;
    await Deno.writeTextFile(
      script,
      `import { writeToOutbox } from ${
        JSON.stringify(import.meta.resolve("../../lib/adapters/outbox.ts"))
      };
try { await writeToOutbox(${
        JSON.stringify(`${denied}/outbox`)
      }, "a.csv", "x"); console.log("written"); }
catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message, cause: e.cause?.name })); }`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-lock", "--allow-read", `--allow-write=${allowed}`, script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout).trim();
    const got = JSON.parse(text);
    assert.deepEqual(got, {
      name: "LocalDirError",
      message: sentence(`${denied}/outbox`),
      cause: "NotCapable",
    });
    assert.doesNotMatch(text, /--allow|flag/);
    // In this process (all permissions) the same write works.
    assert.equal(await writeToOutbox(`${denied}/outbox`, "a.csv", "x"), `${denied}/outbox/a.csv`);
    assert.ok(new LocalDirError("/x", "m") instanceof Error);
  } finally {
    await Deno.remove(allowed, { recursive: true });
    await Deno.remove(denied, { recursive: true });
  }
});
