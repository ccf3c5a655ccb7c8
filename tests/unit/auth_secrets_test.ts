/**
 * Secrets stay out of the operations log (docs/access-control.md, "Secrets") and API keys resolve to the
 * right caller (docs/access-control.md, "Credentials").
 */
import assert from "node:assert/strict";
import { KeyRing } from "../../lib/auth/api_keys.ts";
import { FakeClock } from "../../lib/clock.ts";
import { RuntimeConfig } from "../../lib/config/runtime_config.ts";
import type { ApiKeyEntry } from "../../lib/auth/types.ts";
import { EventLog } from "../../lib/store/events.ts";
import { MASK, Redactor } from "../../lib/store/redactor.ts";
import { withKv } from "../support/temp.ts";

Deno.test("redactor: masks every secret in strings, arrays, nested objects and keys", () => {
  const r = new Redactor(["alpha-secret-0001", 'quo"te\\secret-02']);
  const input = {
    message: "GET /x/alpha-secret-0001/y refused; again alpha-secret-0001",
    data: {
      body: 'platform said: {"authorization":"quo"te\\secret-02"}',
      list: ["ok", "alpha-secret-0001"],
      "alpha-secret-0001": 1,
      n: 5,
    },
  };
  const out = r.redact(input);
  assert.deepEqual(out, {
    message: `GET /x/${MASK}/y refused; again ${MASK}`,
    data: {
      body: `platform said: {"authorization":"${MASK}"}`,
      list: ["ok", MASK],
      [MASK]: 1,
      n: 5,
    },
  });
  assert.ok(input.message.includes("alpha-secret-0001"), "the input is not modified");
});

Deno.test("redactor: the longer secret wins; short values are ignored; no hit keeps the object", () => {
  const r = new Redactor(["secret-0001", "secret-0001-longer", "abc", 42 as unknown as string]);
  assert.equal(r.size, 2);
  assert.equal(r.redact("k=secret-0001-longer"), `k=${MASK}`);
  const clean = { message: "abc nothing secret here" };
  assert.equal(r.redact(clean), clean);
});

Deno.test("event log: a secret quoted in an event is stored masked", () =>
  withKv(async (kv) => {
    const log = new EventLog(kv, new FakeClock(), new Redactor(["mp-key-Xy7-unique-0042"]));
    const rec = await log.append({
      kind: "orchestration_error",
      level: "error",
      message: "market platform answered 401: bad key mp-key-Xy7-unique-0042",
      data: { quoted: "authorization: mp-key-Xy7-unique-0042" },
    });
    assert.equal(rec.message, `market platform answered 401: bad key ${MASK}`);
    const stored = await kv.get(["events", rec.id]);
    assert.ok(!JSON.stringify(stored.value).includes("mp-key-Xy7-unique-0042"));
  }));

Deno.test("runtime config: a secret set by another replica is masked once this one reads it", () =>
  withKv(async (kv) => {
    const password = "sftp-pass-from-replica-a-01";
    const envKey = "mp-key-from-the-env-000001";
    const a = new RuntimeConfig(kv, {});
    await a.update({ sftp_password: password });
    const redactor = new Redactor();
    const b = new RuntimeConfig(kv, { market_platform_api_key: envKey }, redactor);
    assert.equal(redactor.size, 1, "the environment's secret is known at once");
    const log = new EventLog(kv, new FakeClock(), redactor);
    const cfg = await b.effective(); // what the pipeline does before using a secret
    assert.equal(cfg.sftp_password, password);
    const rec = await log.append({
      kind: "orchestration_error",
      message: `sftp login failed for password ${password} / key ${envKey}`,
    });
    assert.equal(rec.message, `sftp login failed for password ${MASK} / key ${MASK}`);
  }));

Deno.test("key ring: every configured key resolves to its caller; process implies external", () => {
  const entries: ApiKeyEntry[] = [
    { name: "acme", scope: "external", secret: "ext-secret-0001-cccccccccc", source: "E" },
    { name: "ops", scope: "process", secret: "proc-secret-0001-aaaaaaaa", source: "P" },
    { name: "ops", scope: "process", secret: "proc-secret-0002-bbbbbbbb", source: "P" },
  ];
  const ring = new KeyRing(entries);
  for (const e of entries) {
    const p = ring.match(e.secret);
    assert.equal(p?.caller, e.name);
    assert.equal(p?.credential_type, "api_key");
    assert.deepEqual(
      [...p!.scopes].sort(),
      e.scope === "process" ? ["external", "process"] : ["external"],
    );
  }
  for (const wrong of ["", "proc-secret-0001-aaaaaaa", "proc-secret-0001-aaaaaaaaa", "ops"]) {
    assert.equal(ring.match(wrong), undefined, wrong);
  }
  assert.deepEqual(ring.callersPerScope(), { external: 1, process: 1 });
  assert.deepEqual(ring.keysPerScope(), { external: 1, process: 2 });
});

Deno.test("key ring: remembered digests never change a decision, also after a flood of wrong keys", () => {
  const ring = new KeyRing([
    { name: "ops", scope: "process", secret: "proc-secret-0001-aaaaaaaa", source: "P" },
  ]);
  // The same wrong key twice, a flood of distinct wrong keys (past the memo's bound), then the
  // right key, a wrong key again, and the right key again: each answer as if hashed afresh.
  assert.equal(ring.match("proc-secret-0001-aaaaaaab"), undefined);
  assert.equal(ring.match("proc-secret-0001-aaaaaaab"), undefined);
  for (let i = 0; i < 3000; i++) assert.equal(ring.match(`guess-${i}-xxxxxxxxxxxx`), undefined);
  assert.equal(ring.match("proc-secret-0001-aaaaaaaa")?.caller, "ops");
  assert.equal(ring.match("guess-0-xxxxxxxxxxxx"), undefined);
  assert.equal(ring.match("proc-secret-0001-aaaaaaaa")?.caller, "ops");
});
