/**
 * A complete audit trail under a flood (docs/access-control.md, "Audit events"): an anonymous
 * flood from one address is summarised, with the paths refused most, but never hides the refusal
 * of a recognised caller from that address — its 403, and its 429 — which is stored with caller
 * and credential type.
 *
 * Real parts: the app on 127.0.0.1 port 0, real HTTP requests; the injected clock.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { call, startServer, storedEvents, type TestServer } from "../support/app.ts";
import { EXT, keysEnv } from "../support/keys.ts";

const clock = () => new FakeClock(Date.parse("2026-11-23T10:00:00Z"));

const denied = async (s: TestServer) =>
  (await storedEvents(s.kv)).filter((e) => e.kind === "access_denied");

/** `n` anonymous refusals: GET `/v1/console/config`, then POST `/v1/orchestrate`. */
async function flood(s: TestServer, config: number, orchestrate: number): Promise<Set<number>> {
  const statuses = new Set<number>();
  for (let i = 0; i < config; i++) {
    statuses.add((await call(`${s.url}/v1/console/config`)).status);
  }
  for (let i = 0; i < orchestrate; i++) {
    statuses.add((await call(`${s.url}/v1/orchestrate`, { method: "POST" })).status);
  }
  return statuses;
}

Deno.test("after 500 anonymous refusals from one address, a customer key's 403 from it is stored with its caller", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_PER_MINUTE: "0" }), { clock: clock() });
  try {
    assert.deepEqual([...await flood(s, 300, 200)], [401]);
    assert.equal((await denied(s)).length, 10, "the flood: ten stored one by one");
    const r = await call(`${s.url}/v1/orchestrate`, {
      method: "POST",
      headers: { "x-api-key": EXT },
    });
    assert.equal(r.status, 403);
    const stored = await denied(s);
    assert.equal(stored.length, 11);
    const last = stored[10];
    assert.equal(last.status, 403);
    assert.equal(last.caller, "acme");
    assert.equal(last.credential_type, "api_key");
    assert.equal(last.client, "127.0.0.1");
    assert.equal(last.path, "/v1/orchestrate");
    // The flood's summary: the count and the paths refused most.
    await s.bridge.close();
    const summary = (await denied(s)).at(-1)!;
    assert.equal(
      summary.message,
      "… and 490 more refusals from 127.0.0.1 in the last minute, most to /v1/console/config (290), /v1/orchestrate (200); not stored one by one",
    );
    assert.deepEqual((summary.data as { paths: unknown }).paths, [
      { path: "/v1/console/config", refusals: 290 },
      { path: "/v1/orchestrate", refusals: 200 },
    ]);
    assert.equal((summary.data as { address: string }).address, "127.0.0.1");
  } finally {
    await s.close();
  }
});

Deno.test("a recognised caller's 429 after an anonymous flood is stored; its own cap still holds", async () => {
  const s = await startServer(
    keysEnv({ RATE_LIMIT_PER_MINUTE: "60", RATE_LIMIT_BURST: "2" }),
    { clock: clock() },
  );
  try {
    // Bad guesses: 401, then 429 from the failed-authentication limit of the address.
    assert.deepEqual([...await flood(s, 100, 100)].sort(), [401, 429]);
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const r = await call(`${s.url}/v1/openapi.json`, { headers: { "x-api-key": EXT } });
      statuses.push(r.status);
    }
    assert.deepEqual(statuses, [200, 200, ...Array(13).fill(429)]);
    const acme = (await denied(s)).filter((e) => e.caller === "acme");
    assert.equal(acme.length, 10, "the caller's own ten a minute");
    for (const e of acme) {
      assert.equal(e.status, 429);
      assert.equal(e.credential_type, "api_key");
      assert.equal(e.client, "127.0.0.1");
    }
    await s.bridge.close();
    const summaries = (await denied(s)).filter((e) => e.status === undefined);
    assert.deepEqual(summaries.map((e) => e.message), [
      "… and 190 more refusals from 127.0.0.1 in the last minute, most to /v1/orchestrate (100), /v1/console/config (90); not stored one by one",
      '… and 3 more refusals of caller "acme" in the last minute, most to /v1/openapi.json (3); not stored one by one',
    ]);
  } finally {
    await s.close();
  }
});
