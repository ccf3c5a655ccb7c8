/**
 * The in-memory caches of the config overlay and the orchestrator state (docs/architecture.md, "In-memory caches") against real
 * servers on one KV file: a change through this instance shows on the very next request; a change
 * by another replica — another app instance in this process, or another process, which
 * `kv.watch` does not see on a local SQLite file — shows within the cache's maximum age (1 s),
 * even when this instance served the old value from memory just before. Also the response
 * headers of API answers and of the console page.
 */
import assert from "node:assert/strict";
import { call, startServer, type TestServer } from "../support/app.ts";
import { PROC } from "../support/keys.ts";

const env = { PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" };
const auth = { "x-api-key": PROC, "content-type": "application/json" };

type Status = { orchestrator: { state: string; changed_by: string | null }; storage: Storage };
type Storage = { publish_target: string; outbox_dir: string | null };
type ConfigBody = { fields: Record<string, { value: unknown; source: string }> };

const status = async (s: TestServer) => {
  const r = await call(`${s.url}/v1/console/status`, { headers: auth });
  assert.equal(r.status, 200);
  return r.body as Status;
};
const config = async (s: TestServer) => {
  const r = await call(`${s.url}/v1/console/config`, { headers: auth });
  assert.equal(r.status, 200);
  return (r.body as ConfigBody).fields;
};

/** Polls `probe` until it returns true; returns the milliseconds it took. */
async function within(ms: number, what: string, probe: () => Promise<boolean>): Promise<number> {
  const t0 = performance.now();
  while (!(await probe())) {
    if (performance.now() - t0 > ms) assert.fail(`${what}: not seen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return performance.now() - t0;
}

Deno.test("cache: a change through this instance shows on the next request", async () => {
  const s = await startServer(env);
  try {
    assert.equal((await status(s)).orchestrator.state, "stopped");
    assert.equal((await status(s)).storage.publish_target, "outbox"); // served from memory
    const started = await call(`${s.url}/v1/console/start`, { method: "POST", headers: auth });
    assert.equal(started.status, 200);
    assert.equal((await status(s)).orchestrator.state, "running");
    const put = await call(`${s.url}/v1/console/config`, {
      method: "PUT",
      headers: auth,
      body: JSON.stringify({ sftp_host: "sftp.runtime.example" }),
    });
    assert.equal(put.status, 200);
    assert.equal((await status(s)).storage.publish_target, "sftp");
    assert.equal((await config(s)).sftp_host.value, "sftp.runtime.example");
    assert.equal((await s.bridge.ctx.config.effective()).sftp_host, "sftp.runtime.example");
    const reset = await call(`${s.url}/v1/console/config`, { method: "DELETE", headers: auth });
    assert.equal(reset.status, 200);
    assert.equal((await status(s)).storage.publish_target, "outbox");
    assert.equal((await config(s)).sftp_host.source, "default");
    await call(`${s.url}/v1/console/stop`, { method: "POST", headers: auth });
    assert.equal((await status(s)).orchestrator.state, "stopped");
  } finally {
    await s.close();
  }
});

Deno.test("cache: another app instance on the same KV file is seen within 2 s", async () => {
  const a = await startServer(env);
  const b = await startServer(env, { kvPath: a.kvPath });
  try {
    // Warm a's caches, so it is memory that must be refreshed.
    assert.equal((await status(a)).orchestrator.state, "stopped");
    assert.equal((await config(a)).sftp_host.source, "default");

    await call(`${b.url}/v1/console/start`, { method: "POST", headers: auth });
    const put = await call(`${b.url}/v1/console/config`, {
      method: "PUT",
      headers: auth,
      body: JSON.stringify({ sftp_host: "sftp.replica-b.example" }),
    });
    assert.equal(put.status, 200);
    await within(2_000, "b's start on a's status", async () => {
      return (await status(a)).orchestrator.state === "running";
    });
    await within(2_000, "b's config change on a's status", async () => {
      return (await status(a)).storage.publish_target === "sftp";
    });
    await within(2_000, "b's config change on a's config read", async () => {
      return (await config(a)).sftp_host.value === "sftp.replica-b.example";
    });

    await call(`${b.url}/v1/console/config`, { method: "DELETE", headers: auth });
    await within(2_000, "b's reset on a's status", async () => {
      return (await status(a)).storage.publish_target === "outbox";
    });
  } finally {
    await b.close({ keepDir: true });
    await a.close();
  }
});

Deno.test("cache: another process writing the KV file is seen within 2 s", async () => {
  const s = await startServer(env);
  try {
    const before = await status(s);
    assert.deepEqual(
      [before.orchestrator.state, before.storage.publish_target],
      ["stopped", "outbox"],
    );
    // A second replica in another process: the app on the same file, driven through its fetch.
    const script = `
      import { createApp } from "./app.ts";
      import { loadSettings } from "./lib/settings.ts";
      const kv = await Deno.openKv(${JSON.stringify(s.kvPath)});
      const bridge = await createApp({
        settings: loadSettings({ ...${JSON.stringify(env)}, KV_PATH: ${JSON.stringify(s.kvPath)} }),
        kv,
      });
      const h = { "x-api-key": ${JSON.stringify(PROC)}, "content-type": "application/json" };
      const send = async (method, path, body) => {
        const r = await bridge.fetch(new Request("http://replica.test" + path, {
          method, headers: h, body: body && JSON.stringify(body),
        }));
        await r.body?.cancel();
        if (r.status !== 200) throw new Error(method + " " + path + " → " + r.status);
      };
      await send("POST", "/v1/console/start");
      await send("PUT", "/v1/console/config", { sftp_host: "sftp.other-process.example" });
      await bridge.close();
      kv.close();
    `;
    // Keep this instance busy meanwhile, so its caches stay warm (refreshed by age alone).
    let polling = true;
    const poller = (async () => {
      while (polling) {
        await status(s);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["eval", "--unstable-kv", "--ext=ts", script],
        cwd: new URL("../../", import.meta.url).pathname,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      await within(2_000, "the other process's changes", async () => {
        const st = await status(s);
        return st.orchestrator.state === "running" && st.storage.publish_target === "sftp";
      });
    } finally {
      polling = false;
      await poller;
    }
    assert.equal((await config(s)).sftp_host.value, "sftp.other-process.example");
  } finally {
    await s.close();
  }
});

Deno.test("headers: API answers carry no-store and nosniff only; the console page the full set", async () => {
  const s = await startServer(env);
  try {
    for (
      const [path, headers] of [
        ["/v1/console/status", auth],
        ["/v1/console/status", {}], // 401
        ["/health", {}],
        ["/v1/no-such-route", {}], // 404
      ] as const
    ) {
      const r = await fetch(`${s.url}${path}`, { headers });
      await r.body?.cancel();
      assert.equal(r.headers.get("content-type"), "application/json", path);
      assert.equal(r.headers.get("cache-control"), "no-store", path);
      assert.equal(r.headers.get("x-content-type-options"), "nosniff", path);
      assert.equal(r.headers.get("x-frame-options"), null, path);
    }
    const page = await fetch(`${s.url}/console`);
    await page.body?.cancel();
    assert.match(String(page.headers.get("content-security-policy")), /default-src 'none'/);
    assert.equal(page.headers.get("x-frame-options"), "DENY");
    assert.equal(page.headers.get("referrer-policy"), "no-referrer");
    assert.equal(page.headers.get("x-content-type-options"), "nosniff");
    assert.equal(page.headers.get("cross-origin-opener-policy"), "same-origin");
  } finally {
    await s.close();
  }
});
