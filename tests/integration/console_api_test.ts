/**
 * Console API (docs/architecture.md: "Runtime configuration", "Console API", "Errors"): runtime config, orchestrator state,
 * restart persistence, secret handling.
 */
import assert from "node:assert/strict";
import { call, startServer, storedEvents, type TestServer } from "../support/app.ts";
import { PROC } from "../support/keys.ts";
import type { Item } from "../support/pipeline.ts";

const env = {
  PROCESS_API_KEYS: `ops:${PROC}`,
  RATE_LIMIT_PER_MINUTE: "0",
  SFTP_HOST: "sftp.env.example",
  HOME_CONTROL_AREA: "10YDE-EON------1",
};
const auth = { "x-api-key": PROC, "content-type": "application/json" };

type Field = { value: unknown; source: string; secret: boolean };
type ConfigBody = { fields: Record<string, Field>; changed?: string[] };

const put = (s: TestServer, body: unknown) =>
  call(`${s.url}/v1/console/config`, {
    method: "PUT",
    headers: auth,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

Deno.test("config: sources env / default / runtime; null reverts; DELETE reverts all", async () => {
  const s = await startServer(env);
  try {
    const read = await call(`${s.url}/v1/console/config`, { headers: auth });
    assert.equal(read.status, 200);
    const f = (read.body as ConfigBody).fields;
    assert.deepEqual([f.sftp_host.value, f.sftp_host.source], ["sftp.env.example", "env"]);
    assert.deepEqual([f.gate_closure_local_time.value, f.gate_closure_local_time.source], [
      "12:00",
      "default",
    ]);
    assert.deepEqual([f.sftp_password.value, f.sftp_password.secret], [null, true]);

    const upd = await put(s, {
      sftp_host: "sftp.runtime.example",
      gate_closure_local_time: "11:30",
    });
    assert.equal(upd.status, 200);
    const u = upd.body as ConfigBody;
    assert.deepEqual(u.changed, ["sftp_host", "gate_closure_local_time"]);
    assert.deepEqual([u.fields.sftp_host.value, u.fields.sftp_host.source], [
      "sftp.runtime.example",
      "runtime",
    ]);
    assert.equal((await s.bridge.ctx.config.effective()).gate_closure_local_time, "11:30");

    const revert = await put(s, { sftp_host: null });
    const r = revert.body as ConfigBody;
    assert.deepEqual([r.fields.sftp_host.value, r.fields.sftp_host.source], [
      "sftp.env.example",
      "env",
    ]);
    assert.equal(r.fields.gate_closure_local_time.source, "runtime");

    const del = await call(`${s.url}/v1/console/config`, { method: "DELETE", headers: auth });
    assert.equal(del.status, 200);
    assert.equal((del.body as ConfigBody).fields.gate_closure_local_time.source, "default");

    const kinds = (await storedEvents(s.kv)).filter((e) => e.kind === "config_changed");
    assert.equal(kinds.length, 3);
    assert.deepEqual((kinds[0].data as { fields: string[] }).fields, [
      "sftp_host",
      "gate_closure_local_time",
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("config: 422 field by field; nothing is written", async () => {
  const s = await startServer(env);
  try {
    const eicCtx = { pattern: "16 characters, ENTSO-E check character" };
    const forbidden = {
      type: "forbidden_field",
      input: null, // a secret's value is never quoted, not even masked
      msg: /cannot be changed through the console/,
      ctx: {},
    };
    const cases: {
      body: unknown;
      loc: unknown[];
      type: string;
      input: unknown;
      msg: RegExp;
      ctx: Record<string, unknown>;
    }[] = [
      {
        body: { home_control_area: "10YDE-RWENET---J" },
        loc: ["body", "home_control_area"],
        type: "value_error.eic",
        input: "10YDE-RWENET---J",
        msg: /check character should be I/,
        ctx: eicCtx,
      },
      {
        body: { active_control_areas: ["10YDE-RWENET---I", "10YDE-EON------2"] },
        loc: ["body", "active_control_areas", 1],
        type: "value_error.eic",
        input: "10YDE-EON------2",
        msg: /not a valid EIC/,
        ctx: eicCtx,
      },
      {
        body: { balancing_group: "11XDE-TOO-SHORT" },
        loc: ["body", "balancing_group"],
        type: "value_error.eic",
        input: "11XDE-TOO-SHORT",
        msg: /not a valid EIC/,
        ctx: eicCtx,
      },
      {
        body: { sftp_hots: "x" },
        loc: ["body", "sftp_hots"],
        type: "extra_forbidden",
        input: null, // an unknown field is named, its value never quoted
        msg: /unknown field "sftp_hots"/,
        ctx: {},
      },
      {
        body: { sftp_port: "22" },
        loc: ["body", "sftp_port"],
        type: "type_error",
        input: "22",
        msg: /expected number/,
        ctx: { expected: "number" },
      },
      {
        body: { sftp_port: 70000 },
        loc: ["body", "sftp_port"],
        type: "value_error.too_big",
        input: 70000,
        msg: /65535/,
        ctx: { maximum: 65535 },
      },
      {
        body: { publish_target: "ftp" },
        loc: ["body", "publish_target"],
        type: "value_error.enum",
        input: "ftp",
        msg: /auto.*sftp.*outbox/,
        ctx: { values: ["auto", "sftp", "outbox"] },
      },
      {
        body: { process_api_keys: "evil:secret-secret-secret" },
        loc: ["body", "process_api_keys"],
        ...forbidden,
      },
      {
        body: { PROCESS_API_KEY: "evil-secret-secret-secret" },
        loc: ["body", "PROCESS_API_KEY"],
        ...forbidden,
      },
      {
        body: { external_api_keys: "x:y-secret-secret-se" },
        loc: ["body", "external_api_keys"],
        ...forbidden,
      },
      { body: { oidc_issuer: "https://evil.example" }, loc: ["body", "oidc_issuer"], ...forbidden },
      {
        body: { allow_unauthenticated: true },
        loc: ["body", "allow_unauthenticated"],
        ...forbidden,
      },
      {
        body: { gate_closure_local_time: "24:00" },
        loc: ["body", "gate_closure_local_time"],
        type: "value_error.format",
        input: "24:00",
        msg: /HH:MM/,
        ctx: { format: "regex", pattern: "/^([01]\\d|2[0-3]):[0-5]\\d$/" },
      },
      {
        body: [1, 2],
        loc: ["body"],
        type: "type_error.object",
        input: [1, 2],
        msg: /JSON object/,
        ctx: {},
      },
      {
        body: "{not json",
        loc: ["body"],
        type: "json_invalid",
        input: null, // the body is never quoted back; the answer says where it broke
        msg: /not valid JSON: expected property name or '}' at position 1 \(line 1, column 2\)/,
        ctx: { position: 1, line: 1, column: 2 },
      },
    ];
    for (const c of cases) {
      const r = await put(s, c.body);
      assert.equal(r.status, 422, JSON.stringify(c.body));
      const items = (r.body as { detail: Item[] }).detail;
      assert.equal(items.length, 1, JSON.stringify(items));
      const [item] = items;
      assert.deepEqual(item.loc, c.loc);
      assert.equal(item.type, c.type);
      assert.deepEqual(item.input, c.input);
      assert.match(item.msg, c.msg);
      assert.deepEqual(item.ctx, c.ctx, JSON.stringify(c.body));
      assert.deepEqual(Object.keys(item).sort(), ["ctx", "input", "loc", "msg", "type"]);
    }
    // A large wrong body is not echoed back whole.
    const huge = await put(s, Array.from({ length: 5000 }, (_, i) => i));
    assert.equal(huge.status, 422);
    const echoed = (huge.body as { detail: Item[] }).detail[0].input as string;
    assert.equal(typeof echoed, "string");
    assert.ok(echoed.startsWith("[0,1,2,") && echoed.endsWith("…") && echoed.length <= 1001);
    // A valid field beside a bad one: the whole update is refused.
    const mixed = await put(s, { sftp_host: "ok.example", sftp_port: 0 });
    assert.equal(mixed.status, 422);
    const view = await call(`${s.url}/v1/console/config`, { headers: auth });
    assert.equal((view.body as ConfigBody).fields.sftp_host.value, "sftp.env.example");
    assert.equal((await storedEvents(s.kv)).filter((e) => e.kind === "config_changed").length, 0);
  } finally {
    await s.close();
  }
});

Deno.test("config: secrets are write-only — not in reads, events or the KV event log", async () => {
  const s = await startServer(env);
  const password = "sftp-pass-Zq8!unique";
  const platformKey = "mp-key-Xy7-unique-0042";
  try {
    const r = await put(s, { sftp_password: password, market_platform_api_key: platformKey });
    assert.equal(r.status, 200);
    const bad = await put(s, { sftp_password: "", market_platform_api_key: "short" });
    assert.equal(bad.status, 422);
    const read = await call(`${s.url}/v1/console/config`, { headers: auth });
    const f = (read.body as ConfigBody).fields;
    assert.equal(f.sftp_password.value, "********");
    assert.equal(f.market_platform_api_key.value, "********");
    const all = [
      JSON.stringify(r.body),
      JSON.stringify(bad.body),
      JSON.stringify(read.body),
      JSON.stringify(await storedEvents(s.kv)),
      JSON.stringify(
        (await call(`${s.url}/v1/console/events?limit=1000`, { headers: auth })).body,
      ),
    ].join("\n");
    for (const secret of [password, platformKey, "short"]) {
      assert.ok(!all.includes(secret), `secret "${secret}" leaked`);
    }
    // The pipeline does see them.
    const eff = await s.bridge.ctx.config.effective();
    assert.equal(eff.sftp_password, password);
  } finally {
    await s.close();
  }
});

Deno.test("orchestrator start/stop: state object, events with caller, status pill", async () => {
  const s = await startServer(env);
  try {
    const start = await call(`${s.url}/v1/console/start`, { method: "POST", headers: auth });
    assert.equal(start.status, 200);
    assert.equal((start.body as { state: string }).state, "running");
    assert.equal((start.body as { changed_by: string }).changed_by, "ops");
    const status = await call(`${s.url}/v1/console/status`, { headers: auth });
    assert.equal(
      (status.body as { orchestrator: { state: string } }).orchestrator.state,
      "running",
    );
    const stop = await call(`${s.url}/v1/console/stop`, { method: "POST", headers: auth });
    assert.equal((stop.body as { state: string }).state, "stopped");
    const kinds = (await storedEvents(s.kv)).map((e) => [e.kind, e.caller]);
    assert.deepEqual(kinds, [
      ["orchestrator_started", "ops"],
      ["api_call", "ops"],
      ["orchestrator_stopped", "ops"],
      ["api_call", "ops"],
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("ORCHESTRATOR_AUTOSTART=true makes a first deployment running", async () => {
  const s = await startServer({ ...env, ORCHESTRATOR_AUTOSTART: "true" });
  try {
    const status = await call(`${s.url}/v1/console/status`, { headers: auth });
    assert.equal(
      (status.body as { orchestrator: { state: string } }).orchestrator.state,
      "running",
    );
  } finally {
    await s.close();
  }
});

Deno.test("restart: overlay, orchestrator state and events survive closing KV", async () => {
  const first = await startServer(env);
  const kvPath = first.kvPath;
  try {
    assert.equal((await put(first, { gate_closure_local_time: "10:45" })).status, 200);
    await call(`${first.url}/v1/console/start`, { method: "POST", headers: auth });
  } finally {
    await first.close({ keepDir: true });
  }
  const second = await startServer(env, { kvPath });
  try {
    const cfg = await call(`${second.url}/v1/console/config`, { headers: auth });
    const f = (cfg.body as ConfigBody).fields.gate_closure_local_time;
    assert.deepEqual([f.value, f.source], ["10:45", "runtime"]);
    const status = await call(`${second.url}/v1/console/status`, { headers: auth });
    assert.equal(
      (status.body as { orchestrator: { state: string } }).orchestrator.state,
      "running",
    );
    const ev = await call(`${second.url}/v1/console/events`, { headers: auth });
    const kinds = (ev.body as { events: { kind: string }[] }).events.map((e) => e.kind);
    assert.deepEqual(kinds, ["config_changed", "api_call", "orchestrator_started", "api_call"]);
  } finally {
    await second.close();
    await Deno.remove(kvPath.slice(0, kvPath.lastIndexOf("/")), { recursive: true });
  }
});

Deno.test("start-up refuses a bad config environment value, naming the variable", async () => {
  const { loadSettings, SettingsError } = await import("../../lib/settings.ts");
  assert.throws(
    () => loadSettings({ HOME_CONTROL_AREA: "10YDE-RWENET---J", SFTP_PASSWORD: "pw-never-shown" }),
    (err: unknown) =>
      err instanceof SettingsError && /HOME_CONTROL_AREA/.test(err.message) &&
      !err.message.includes("pw-never-shown"),
  );
});

Deno.test("status says where published files go: sFTP with a host, else the local outbox", async () => {
  const s = await startServer(env); // SFTP_HOST is set in env
  try {
    const first = await call(`${s.url}/v1/console/status`, { headers: auth });
    assert.deepEqual((first.body as { storage: unknown }).storage, {
      kv: "local_file",
      publish_target: "sftp",
      outbox_dir: null,
    });
    const noHost = await startServer({ ...env, SFTP_HOST: "" });
    try {
      const st = await call(`${noHost.url}/v1/console/status`, { headers: auth });
      assert.deepEqual((st.body as { storage: unknown }).storage, {
        kv: "local_file",
        publish_target: "outbox",
        outbox_dir: "./data/outbox",
      });
    } finally {
      await noHost.close();
    }
  } finally {
    await s.close();
  }
});
