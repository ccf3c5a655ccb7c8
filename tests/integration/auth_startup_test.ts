/**
 * `main.ts` as an operator starts it (docs/access-control.md, "Fail closed"; docs/architecture.md, "Layers"): a bad environment stops start-up
 * with exit status 1 and a message that names the variable and never prints a secret; with
 * `ALLOW_UNAUTHENTICATED=true` every start records an `auth_disabled` warning event.
 */
import assert from "node:assert/strict";
import { storedEvents } from "../support/app.ts";
import { denoChildEnv } from "../support/deno_env.ts";
import { withTempDir } from "../support/temp.ts";

const SECRET = "proc-secret-never-printed-01";

/**
 * Runs main.ts with exactly `env`, plus what Deno itself needs to use this process's caches
 * (`DENO_DIR`, `HOME`, `PATH`, …): without them a fresh cache makes the child download first.
 */
function mainWith(env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    env: { ...denoChildEnv(), ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  });
}

Deno.test("main.ts: a bad environment exits 1 naming each variable, never a secret", async () => {
  await withTempDir(async (dir) => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PROCESS_API_KEYS: SECRET }, /PROCESS_API_KEYS: entry 1 is not of the form name:secret/],
      [
        { PROCESS_API_KEYS: `ops:${SECRET}`, RATE_LIMIT_PER_MINUTE: "abc" },
        /RATE_LIMIT_PER_MINUTE: expected a whole number/,
      ],
      [
        { PROCESS_API_KEYS: `ops:${SECRET}`, EXTERNAL_API_KEYS: "ops:another-secret-000001" },
        /caller name "ops" is also configured/,
      ],
      [
        { PROCESS_API_KEYS: `ops:${SECRET}`, SFTP_PASSWORD: SECRET, SFTP_PORT: "none" },
        /SFTP_PORT: /,
      ],
    ];
    for (const [env, message] of cases) {
      const out = await mainWith({ ...env, KV_PATH: `${dir}/never.kv`, PORT: "0" }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      const stdout = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 1, stderr);
      assert.match(stderr, /^Invalid configuration:/);
      assert.match(stderr, message);
      assert.ok(!(stderr + stdout).includes(SECRET), `secret printed: ${stderr}`);
      assert.ok(!/listening/.test(stdout), "it did not start");
    }
  }, "bridge-startup-");
});

Deno.test("main.ts: ALLOW_UNAUTHENTICATED records auth_disabled on every start", async () => {
  await withTempDir(async (dir) => {
    const kvPath = `${dir}/bridge.kv`;
    for (let start = 1; start <= 2; start++) {
      const child = mainWith({
        ALLOW_UNAUTHENTICATED: "true",
        KV_PATH: kvPath,
        PORT: "0",
        HOSTNAME: "127.0.0.1",
      }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let out = "";
      while (!/listening on (http:[^\s"]+)/.test(out)) {
        const r = await reader.read();
        if (r.done) break;
        out += r.value;
      }
      const url = /listening on (http:[^\s"]+)/.exec(out)?.[1];
      assert.ok(url, out);
      const health = await fetch(`${url}/health`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
      const status = await fetch(`${url}/v1/console/status`);
      assert.equal(status.status, 200, "every route is open");
      await status.body?.cancel();
      child.kill("SIGTERM");
      await reader.cancel();
      await child.stderr.cancel();
      await child.status;
      const kv = await Deno.openKv(kvPath);
      try {
        const disabled = (await storedEvents(kv)).filter((e) => e.kind === "auth_disabled");
        assert.equal(disabled.length, start);
        assert.ok(disabled.every((e) => e.level === "warning"));
        assert.match(String(disabled[0].message), /ALLOW_UNAUTHENTICATED/);
      } finally {
        kv.close();
      }
    }
  }, "bridge-startup-");
});
