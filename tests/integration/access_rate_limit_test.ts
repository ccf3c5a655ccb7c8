/**
 * Rate limits against a real server (docs/access-control.md, "Request path"): the token bucket
 * per caller (429 with Retry-After; rate 0 never limits) and the limit on failed authentication
 * per client address.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { call, startServer, storedEvents } from "../support/app.ts";
import { EXT, keysEnv, PROC } from "../support/keys.ts";

// Every server here runs on a FakeClock: the buckets refill by it, not by how slow the machine is.
Deno.test("rate limit: burst + 1 → 429 with Retry-After ≥ 1; another caller unaffected", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_BURST: "5", RATE_LIMIT_PER_MINUTE: "60" }), {
    clock: new FakeClock(),
  });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await call(`${s.url}/v1/openapi.json`, { headers: { "x-api-key": EXT } });
      statuses.push(r.status);
      if (i === 5) {
        assert.ok(Number(r.headers.get("retry-after")) >= 1);
        assert.match(String(r.headers.get("retry-after")), /^\d+$/);
        assert.match((r.body as { detail: string }).detail, /Rate limit exceeded/);
      }
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    const other = await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    assert.equal(other.status, 200);
    const denied = (await storedEvents(s.kv)).filter((e) => e.kind === "access_denied");
    assert.equal(denied.length, 1);
    assert.equal(denied[0].status, 429);
    assert.equal(denied[0].path, "/v1/openapi.json");
  } finally {
    await s.close();
  }
});

Deno.test("rate 0 never limits", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_BURST: "2", RATE_LIMIT_PER_MINUTE: "0" }), {
    clock: new FakeClock(),
  });
  try {
    for (let i = 0; i < 20; i++) {
      const r = await call(`${s.url}/v1/openapi.json`, { headers: { "x-api-key": EXT } });
      assert.equal(r.status, 200);
    }
  } finally {
    await s.close();
  }
});

Deno.test("failed authentication is limited per client address", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_BURST: "3", RATE_LIMIT_PER_MINUTE: "60" }), {
    clock: new FakeClock(),
  });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call(`${s.url}/v1/console/status`, {
        headers: { "x-api-key": `guess-${i}-xxxxxxxxxxxx` },
      });
      statuses.push(r.status);
    }
    assert.deepEqual(statuses, [401, 401, 401, 429]);
  } finally {
    await s.close();
  }
});

Deno.test("failed authentication: limited per address; other addresses and valid keys unaffected", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_BURST: "2", RATE_LIMIT_PER_MINUTE: "60" }), {
    clock: new FakeClock(),
  });
  try {
    // bridge.fetch with Deno.serve's handler info, as from two different client addresses.
    const from = async (hostname: string, key: string) => {
      const res = await s.bridge.fetch(
        new Request("http://bridge.test/v1/console/status", { headers: { "x-api-key": key } }),
        {
          remoteAddr: { transport: "tcp", hostname, port: 40000 },
          completed: Promise.resolve(),
        } as Deno.ServeHandlerInfo<Deno.NetAddr>,
      );
      await res.body?.cancel();
      return res.status;
    };
    const guesses = [];
    for (let i = 0; i < 3; i++) guesses.push(await from("192.0.2.1", `guess-${i}-xxxxxxxxxxxxx`));
    assert.deepEqual(guesses, [401, 401, 429]);
    assert.equal(await from("192.0.2.2", "guess-9-xxxxxxxxxxxxx"), 401);
    // The limit is on failures: a valid key from the blocked address still gets in.
    assert.equal(await from("192.0.2.1", PROC), 200);
  } finally {
    await s.close();
  }
});
