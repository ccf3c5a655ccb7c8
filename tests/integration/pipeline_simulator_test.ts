/**
 * The market-platform simulator (dev/market_platform_simulator.ts) over real HTTPS, trusted
 * through `Deno.createHttpClient({caCerts})`: its contract (key raw in `authorization`,
 * idempotency keys honoured, failures and delays on request), and the bridge relying on it when
 * a submitter died mid-send and its claim is taken over.
 */
import assert from "node:assert/strict";
import { startSimulator } from "../../dev/market_platform_simulator.ts";
import { FakeClock } from "../../lib/clock.ts";
import { call, startServer } from "../support/app.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { tempDir } from "../support/temp.ts";
import { PROC } from "../support/keys.ts";

const body = (version: number) =>
  JSON.stringify({
    delivery_day: "2026-11-23",
    aggregate_version: version,
    schedules: [{ control_area: AREAS.amprion, quantities: Array(96).fill(0.1) }],
  });

Deno.test("simulator: HTTPS with its own certificate, raw key, idempotency keys, failures and delays", async () => {
  const sim = await startSimulator();
  const client = Deno.createHttpClient({ caCerts: [sim.caCert] });
  const post = async (headers: Record<string, string>, payload = body(1)) => {
    const res = await fetch(`${sim.url}/schedules`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: payload,
      client,
    });
    return { status: res.status, json: await res.json().catch(() => null) };
  };
  try {
    assert.match(sim.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    // Without the CA the certificate is refused: it really is self-signed TLS.
    await assert.rejects(fetch(`${sim.url}/schedules`));

    const key = { authorization: sim.apiKey };
    assert.equal((await post({ authorization: `Bearer ${sim.apiKey}` })).status, 401);
    assert.equal((await post(key)).status, 400, "idempotency-key is required");
    const first = await post({ ...key, "idempotency-key": "2026-11-23-v1" });
    assert.equal(first.status, 201);
    const again = await post({ ...key, "idempotency-key": "2026-11-23-v1" }, body(99));
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, first.json, "the same receipt; the second body is ignored");
    assert.equal(sim.submissions().length, 1);
    assert.equal(sim.submissions()[0].body.aggregate_version, 1);

    sim.failNext(503, "maintenance window", 2);
    const failed = [
      await post({ ...key, "idempotency-key": "2026-11-23-v2" }),
      await post({ ...key, "idempotency-key": "2026-11-23-v2" }),
    ];
    assert.deepEqual(failed.map((f) => f.status), [503, 503]);
    assert.equal((await post({ ...key, "idempotency-key": "2026-11-23-v2" })).status, 201);
    assert.equal((await post({ ...key, "idempotency-key": "x" }, "{not json")).status, 400);

    sim.delay(300);
    const t0 = Date.now();
    assert.equal((await post({ ...key, "idempotency-key": "2026-11-23-v3" })).status, 201);
    assert.ok(Date.now() - t0 >= 290, "answers were delayed");
    assert.equal(sim.submissions().length, 3);
  } finally {
    client.close();
    await sim.close();
  }
});

Deno.test("a claim whose holder died mid-send is taken over; the same idempotency key keeps it one submission", async () => {
  const sim = await startSimulator();
  await using tmp = await tempDir("bridge-sim-");
  const dir = tmp.path;
  await Deno.writeTextFile(`${dir}/ca.pem`, sim.caCert);
  const clock = new FakeClock(Date.parse("2026-11-22T08:00:00Z"));
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    RATE_LIMIT_PER_MINUTE: "0",
    MARKET_PLATFORM_URL: sim.url,
    MARKET_PLATFORM_API_KEY: sim.apiKey,
    MARKET_PLATFORM_CA_FILE: `${dir}/ca.pem`,
    BALANCING_GROUP: "11XDE-EXAMPLE--H",
    SENDER_EIC: "11XDE-EXAMPLE--H",
    OUTBOX_DIR: `${dir}/outbox`,
  }, { clock });
  const headers = { "x-api-key": PROC, "content-type": "application/json" };
  try {
    const day = "2026-11-23";
    await call(`${s.url}/v1/market-locations/${maloId(1)}`, {
      method: "PUT",
      headers,
      body: JSON.stringify({ control_area: AREAS.amprion, direction: "consumption" }),
    });
    await call(`${s.url}/v1/forecasts`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        market_location_id: maloId(1),
        delivery_day: day,
        unit: "kW",
        values: Array(96).fill(100),
      }),
    });
    await call(`${s.url}/v1/delivery-days/${day}/aggregate`, { method: "POST", headers });
    // The dead replica had claimed version 1 and its request reached the platform.
    await s.kv.set(["submissions", day, 1], {
      state: "in_flight",
      version: 1,
      claimed_by: "replica-that-died",
      claimed_at: "2026-11-22T07:00:00.000Z",
      lease_until: clock.now() + 60_000,
    });
    const client = Deno.createHttpClient({ caCerts: [sim.caCert] });
    const earlier = await fetch(`${sim.url}/schedules`, {
      method: "POST",
      headers: { authorization: sim.apiKey, "idempotency-key": `${day}-v1` },
      body: body(1),
      client,
    });
    const receipt = await earlier.json() as { submission_id: string };
    client.close();

    // While its lease lasts: 409, nothing sent.
    const busy = await call(`${s.url}/v1/delivery-days/${day}/submit`, { method: "POST", headers });
    assert.equal(busy.status, 409);
    assert.match((busy.body as { detail: string }).detail, /being submitted by replica-that-died/);
    assert.equal(sim.requests(), 1);

    // After the lease: taken over, resent with the same key, deduplicated by the platform.
    clock.advance(61_000);
    const taken = await call(`${s.url}/v1/delivery-days/${day}/submit`, {
      method: "POST",
      headers,
    });
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    const r = taken.body as {
      sent: boolean;
      idempotency_key: string;
      receipt: { status: number; body: { submission_id: string } };
    };
    assert.equal(r.idempotency_key, `${day}-v1`);
    assert.equal(r.receipt.status, 200);
    assert.equal(r.receipt.body.submission_id, receipt.submission_id);
    assert.equal(sim.submissions().length, 1);
  } finally {
    await s.close();
    await sim.close();
  }
});
