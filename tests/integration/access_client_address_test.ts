/**
 * The client address behind a reverse proxy (docs/access-control.md, "Client address"): only
 * when the socket peer is in `TRUSTED_PROXIES` do `Forwarded` (RFC 7239) and `X-Forwarded-For`
 * name the client, and that client — not the proxy — has its own failed-authentication budget,
 * its own refusal-log budget and its address in `api_call` and `access_denied` events.
 *
 * Real parts: the app on 127.0.0.1 port 0 (so the peer is 127.0.0.1), real HTTP requests; the
 * injected clock (no refill of the budgets during a test).
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { call, startServer, storedEvents, type TestServer } from "../support/app.ts";
import { keysEnv, PROC } from "../support/keys.ts";

const clock = () => new FakeClock(Date.parse("2026-11-23T10:00:00Z"));

/** A refused guess at a key, with `headers`; the status. */
async function guess(s: TestServer, headers: Record<string, string>): Promise<number> {
  const r = await call(`${s.url}/v1/console/status`, {
    headers: { "x-api-key": "guess-xxxxxxxxxxxxxxxx", ...headers },
  });
  return r.status;
}

const denied = async (s: TestServer) =>
  (await storedEvents(s.kv)).filter((e) => e.kind === "access_denied");

/** The stored refusals one by one (not the summaries), by client. */
const perClient = async (s: TestServer) => {
  const out: Record<string, number> = {};
  for (const e of await denied(s)) {
    if (e.status !== undefined) out[String(e.client)] = (out[String(e.client)] ?? 0) + 1;
  }
  return out;
};

for (
  const [label, extra] of [
    ["no TRUSTED_PROXIES", {}],
    ["TRUSTED_PROXIES naming other proxies", { TRUSTED_PROXIES: "10.0.0.0/8, 2001:db8::/32" }],
  ] as const
) {
  Deno.test(`client address: spoofed proxy headers from an untrusted peer change nothing (${label})`, async () => {
    const s = await startServer(
      keysEnv({ RATE_LIMIT_BURST: "3", RATE_LIMIT_PER_MINUTE: "60", ...extra }),
      { clock: clock() },
    );
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 25; i++) {
        statuses.push(
          await guess(s, {
            "x-forwarded-for": `198.51.100.${i}`,
            forwarded: `for=203.0.113.${i}`,
          }),
        );
      }
      assert.deepEqual(statuses, [401, 401, 401, ...Array(22).fill(429)], "one budget");
      assert.deepEqual(await perClient(s), { "127.0.0.1": 10 }, "one refusal-log budget");
      const stop = await call(`${s.url}/v1/console/stop`, {
        method: "POST",
        headers: { "x-api-key": PROC, "x-forwarded-for": "198.51.100.77" },
      });
      assert.equal(stop.status, 200);
      const apiCall = (await storedEvents(s.kv)).find((e) => e.kind === "api_call");
      assert.equal(apiCall?.client, "127.0.0.1");
      await s.bridge.close();
      const summary = (await denied(s)).find((e) => e.status === undefined);
      assert.match(String(summary?.message), /… and 15 more refusals from 127\.0\.0\.1 /);
    } finally {
      await s.close();
    }
  });
}

Deno.test("client address: two clients behind one trusted proxy have separate budgets", async () => {
  const s = await startServer(
    keysEnv({
      RATE_LIMIT_BURST: "3",
      RATE_LIMIT_PER_MINUTE: "60",
      TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8",
    }),
    { clock: clock() },
  );
  try {
    // Client A floods; the left part of its X-Forwarded-For it wrote itself (spoofed, ignored).
    const a: number[] = [];
    for (let i = 0; i < 15; i++) {
      a.push(await guess(s, { "x-forwarded-for": `198.51.100.${i}, 192.0.2.1` }));
    }
    assert.deepEqual(a, [401, 401, 401, ...Array(12).fill(429)]);
    // Client B, through a second trusted proxy hop, named by Forwarded: not locked out by A.
    const b: number[] = [];
    for (let i = 0; i < 5; i++) {
      b.push(await guess(s, { forwarded: `for=192.0.2.2;proto=https, for=10.1.1.1` }));
    }
    assert.deepEqual(b, [401, 401, 401, 429, 429]);
    // A third one is not locked out by either.
    assert.equal(await guess(s, { "x-forwarded-for": "192.0.2.3" }), 401);
    assert.deepEqual(await perClient(s), { "192.0.2.1": 10, "192.0.2.2": 5, "192.0.2.3": 1 });
    const stop = await call(`${s.url}/v1/console/stop`, {
      method: "POST",
      headers: { "x-api-key": PROC, "x-forwarded-for": "192.0.2.44" },
    });
    assert.equal(stop.status, 200);
    const apiCall = (await storedEvents(s.kv)).find((e) => e.kind === "api_call");
    assert.equal(apiCall?.client, "192.0.2.44");
    await s.bridge.close();
    const summaries = (await denied(s)).filter((e) => e.status === undefined);
    assert.deepEqual(summaries.map((e) => (e.data as { address: string }).address), [
      "192.0.2.1",
    ]);
    assert.match(String(summaries[0].message), /… and 5 more refusals from 192\.0\.2\.1 /);
  } finally {
    await s.close();
  }
});

Deno.test("client address: IPv6 clients behind a trusted proxy count by their /64", async () => {
  const s = await startServer(
    keysEnv({ RATE_LIMIT_BURST: "3", RATE_LIMIT_PER_MINUTE: "60", TRUSTED_PROXIES: "127.0.0.1" }),
    { clock: clock() },
  );
  try {
    const rotating: number[] = [];
    for (let i = 0; i < 15; i++) {
      rotating.push(
        await guess(s, { forwarded: `for="[2001:db8:1:2:${(i + 1).toString(16)}::a]:4711"` }),
      );
    }
    assert.deepEqual(rotating, [401, 401, 401, ...Array(12).fill(429)], "one /64, one budget");
    // The neighbouring /64 is another client.
    assert.equal(await guess(s, { "x-forwarded-for": "2001:db8:1:3::a" }), 401);
    const stored = await denied(s);
    assert.equal(stored.length, 11);
    assert.equal(stored[0].client, "2001:db8:1:2:1::a", "the event names the address itself");
    assert.equal(stored[10].client, "2001:db8:1:3::a");
    await s.bridge.close();
    const summary = (await denied(s)).find((e) => e.status === undefined);
    assert.match(String(summary?.message), /… and 5 more refusals from 2001:db8:1:2::\/64 /);
  } finally {
    await s.close();
  }
});

Deno.test("client address: malformed or contradicting headers from a trusted proxy give the peer", async () => {
  const s = await startServer(
    keysEnv({ RATE_LIMIT_PER_MINUTE: "0", TRUSTED_PROXIES: "127.0.0.1" }),
    { clock: clock() },
  );
  try {
    const cases: [Record<string, string>, string][] = [
      [{ forwarded: 'for="[2001:db8::1]:4711"' }, "2001:db8::1"], // well-formed: the client
      [{ forwarded: 'for="[2001:db8::1' }, "127.0.0.1"], // quote not closed
      [{ forwarded: "for=2001:db8::1" }, "127.0.0.1"], // IPv6 must be quoted
      [{ forwarded: "for=192.0.2.1;for=192.0.2.3" }, "127.0.0.1"], // for= twice in one element
      [{ forwarded: "for" }, "127.0.0.1"], // no value
      [{ forwarded: "for=unknown" }, "127.0.0.1"], // the proxy does not know
      [{ forwarded: "for=_hidden;proto=https" }, "127.0.0.1"], // obfuscated
      [{ forwarded: "for=192.0.2.5, for=_hidden" }, "127.0.0.1"], // nothing left of a hidden hop
      [{ "x-forwarded-for": "not-an-address" }, "127.0.0.1"],
      [{ "x-forwarded-for": "192.0.2.300" }, "127.0.0.1"],
      [{ "x-forwarded-for": "192.0.2.1", forwarded: "for=192.0.2.2" }, "127.0.0.1"], // disagree
      [{ "x-forwarded-for": "192.0.2.6", forwarded: 'for="192.0.2.6:80"' }, "192.0.2.6"], // agree
    ];
    for (const [headers] of cases) assert.equal(await guess(s, headers), 401);
    const stored = await denied(s);
    assert.deepEqual(
      stored.map((e) => e.client),
      cases.map(([, client]) => client),
    );
  } finally {
    await s.close();
  }
});
