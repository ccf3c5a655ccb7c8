/**
 * Event history and live stream (SPEC §4 rules 2 and 4, §6; DESIGN §6).
 */
import assert from "node:assert/strict";
import { call, startServer, type TestServer } from "../support/app.ts";
import { ids, openSse } from "../support/sse.ts";

const PROC = "proc-secret-0001-aaaaaaaa";
const env = { PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" };
const auth = { "x-api-key": PROC };

async function seed(s: TestServer, n: number) {
  await Promise.all(
    Array.from(
      { length: n },
      (_, i) => s.bridge.ctx.events.append({ kind: "config_changed", message: `seed ${i + 1}` }),
    ),
  );
}

async function streamToken(s: TestServer): Promise<string> {
  const r = await call(`${s.url}/v1/console/stream-token`, { method: "POST", headers: auth });
  assert.equal(r.status, 200);
  return (r.body as { token: string }).token;
}

Deno.test("history: newest page, paging with after_id, next_after_id", async () => {
  const s = await startServer(env);
  try {
    await seed(s, 25);
    const newest = await call(`${s.url}/v1/console/events?limit=10`, { headers: auth });
    assert.equal(newest.status, 200);
    const page = newest.body as { events: { id: number }[]; next_after_id: number };
    assert.deepEqual(page.events.map((e) => e.id), [16, 17, 18, 19, 20, 21, 22, 23, 24, 25]);
    assert.equal(page.next_after_id, 25);
    const fwd = await call(`${s.url}/v1/console/events?after_id=5&limit=3`, { headers: auth });
    const p2 = fwd.body as { events: { id: number }[]; next_after_id: number };
    assert.deepEqual(p2.events.map((e) => e.id), [6, 7, 8]);
    assert.equal(p2.next_after_id, 8);
    const end = await call(`${s.url}/v1/console/events?after_id=25`, { headers: auth });
    assert.deepEqual(end.body, { events: [], next_after_id: 25 });
    const def = await call(`${s.url}/v1/console/events`, { headers: auth });
    assert.equal((def.body as { events: unknown[] }).events.length, 25);
  } finally {
    await s.close();
  }
});

Deno.test("history: bad parameters → 422 in the SPEC §7 shape", async () => {
  const s = await startServer(env);
  try {
    const cases: [string, string, string][] = [
      ["limit=0", "limit", "value_error.too_small"],
      ["limit=1001", "limit", "value_error.too_big"],
      ["limit=abc", "limit", "type_error"],
      ["after_id=-1", "after_id", "value_error.too_small"],
      ["bogus=1", "bogus", "extra_forbidden"],
    ];
    for (const [qs, field, type] of cases) {
      const r = await call(`${s.url}/v1/console/events?${qs}`, { headers: auth });
      assert.equal(r.status, 422, qs);
      const item = (r.body as { detail: Record<string, unknown>[] }).detail[0];
      assert.deepEqual(item.loc, ["query", field], qs);
      assert.equal(item.type, type, qs);
      assert.equal(typeof item.msg, "string");
      assert.ok("input" in item && "ctx" in item, qs);
    }
  } finally {
    await s.close();
  }
});

Deno.test("stream: refuses API keys, bearer headers, tampered and cross-route tokens", async () => {
  const s = await startServer(env);
  try {
    const token = await streamToken(s);
    const noToken = await openSse(`${s.url}/v1/console/events/stream`, auth);
    assert.equal(noToken.status, 401);
    const keyAsToken = await openSse(`${s.url}/v1/console/events/stream?token=${PROC}`);
    assert.equal(keyAsToken.status, 401);
    const tampered = await openSse(
      `${s.url}/v1/console/events/stream?token=${token.slice(0, -2)}AA`,
    );
    assert.equal(tampered.status, 401);
    const nonAscii = await openSse(
      `${s.url}/v1/console/events/stream?token=${encodeURIComponent("tök")}`,
    );
    assert.equal(nonAscii.status, 401);
    // The stream token is no credential anywhere else.
    const tries: Record<string, string>[] = [{ "x-api-key": token }, {
      authorization: `Bearer ${token}`,
    }];
    for (const h of tries) {
      const other = await call(`${s.url}/v1/console/status?token=${token}`, { headers: h });
      assert.equal(other.status, 401);
    }
  } finally {
    await s.close();
  }
});

Deno.test("stream: live events, then resume with Last-Event-ID and after_id without gap or duplicate", async () => {
  const s = await startServer(env);
  try {
    await seed(s, 3);
    const token = await streamToken(s);
    const live = await openSse(`${s.url}/v1/console/events/stream?token=${token}`);
    assert.equal(live.status, 200);
    const first = await live.read((m) => m.some((x) => x.retry !== undefined), 2000);
    assert.equal(first[0].retry, 3000);
    await seed(s, 5); // ids 4..8
    const got = await live.read((m) => ids(m).length >= 5, 2000);
    assert.deepEqual(ids(got), [4, 5, 6, 7, 8]);
    assert.equal(got.find((m) => m.id === "4")?.event, "config_changed");
    assert.equal(JSON.parse(got.find((m) => m.id === "4")!.data!).message, "seed 1");
    await live.close();
    await seed(s, 4); // ids 9..12 arrive while disconnected
    for (
      const [url, headers] of [
        [`${s.url}/v1/console/events/stream?token=${token}`, { "last-event-id": "6" }],
        [`${s.url}/v1/console/events/stream?token=${token}&after_id=6`, {}],
      ] as [string, Record<string, string>][]
    ) {
      const again = await openSse(url, headers);
      const rest = await again.read((m) => ids(m).length >= 6, 2000);
      await again.close();
      assert.deepEqual(ids(rest), [7, 8, 9, 10, 11, 12]);
    }
  } finally {
    await s.close();
  }
});

Deno.test("stream: two processes append 1,000 each → a third streams all 2,000 in order", async () => {
  const s = await startServer(env);
  try {
    const token = await streamToken(s);
    const stream = await openSse(`${s.url}/v1/console/events/stream?token=${token}&after_id=0`);
    const run = (label: string) =>
      new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "tests/support/append_events.ts", s.kvPath, "1000", label],
        stdout: "inherit",
        stderr: "inherit",
      }).output();
    const [a, b] = await Promise.all([run("A"), run("B")]);
    assert.equal(a.code, 0);
    assert.equal(b.code, 0);
    const got = await stream.read((m) => ids(m).length >= 2000, 15_000);
    await stream.close();
    const seen = ids(got);
    assert.equal(seen.length, 2000);
    assert.deepEqual(seen, Array.from({ length: 2000 }, (_, i) => i + 1));
    const labels = got.filter((m) => m.data).map((m) => JSON.parse(m.data!).data.label);
    assert.equal(labels.filter((l) => l === "A").length, 1000);
    assert.equal(labels.filter((l) => l === "B").length, 1000);
  } finally {
    await s.close();
  }
});
