/**
 * Two replicas on one KV file under concurrent master-data and forecast load (docs/architecture.md,
 * "Writes and concurrency"): two real service processes take single registrations, batch
 * registrations and forecast uploads at the same time. No answer is a 5xx (a 503 would be sent
 * again by the load's client and is counted, but none is expected at this size), every location
 * is registered exactly once with its final fields, and the stored profile class table is that
 * of the stored locations at the current master-data version. Past the retry budget — another
 * replica holding its turn that long — the answer is 503 with `Retry-After` and a sentence.
 */
import assert from "node:assert/strict";
import { spawnService } from "../support/service_process.ts";
import { env, ext } from "../support/pipeline.ts";
import { KEYS } from "../../lib/store/keys.ts";
import { addDays, localDayOf, quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { location } from "../support/profile_portfolio.ts";
import { listAll, runReplicaLoad } from "../support/replica_load.ts";
import { expectedTable } from "../support/profile_portfolio.ts";
import { masterDataVersion } from "../../lib/pipeline/master_data.ts";
import { readClassTable } from "../../lib/pipeline/profile_classes.ts";
import { listMarketLocations } from "../../lib/pipeline/market_locations.ts";

Deno.test("replicas: 2 × 500 single writes, batch registrations and forecast uploads on one KV file answer no 5xx, and every location is stored once with its final fields", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bridge-replicas-" });
  const kvPath = `${dir}/bridge.kv`;
  const a = await spawnService(env, { kvPath });
  const b = await spawnService(env, { kvPath });
  try {
    const { counts, expected } = await runReplicaLoad([a.url, b.url], {
      singles: 500,
      batches: 4,
      batchSize: 100,
      forecasts: 10,
      forecastSize: 100,
      concurrency: 8,
    });
    assert.deepEqual(
      { ...counts, ok2xx: undefined },
      {
        ok2xx: undefined,
        s503: 0,
        retryAfterMissing: 0,
        other5xx: 0,
        other: 0,
        samples: [],
        failed: 0,
      },
    );
    // the pool batch + 2 × (500 single writes + 2 × 4 batches + 10 forecast uploads)
    assert.equal(counts.ok2xx, 1 + 2 * (500 + 8 + 10));

    for (const replica of [a, b]) {
      const listed = await listAll(replica.url);
      assert.equal(listed.size, expected.size);
      for (const [id, want] of expected) {
        const got = listed.get(id);
        assert.ok(got, `${id} not registered`);
        const { updated_at: _, ...fields } = got;
        assert.deepEqual(fields, want, id);
      }
    }
  } finally {
    await b.close();
    await a.close();
  }
  const kv = await Deno.openKv(kvPath);
  try {
    const stored = await listMarketLocations(kv);
    const table = await readClassTable(kv);
    assert.equal(table.version, await masterDataVersion(kv));
    assert.deepEqual(table.table, expectedTable(stored));
  } finally {
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("replicas: past the retry budget (another replica keeps its turn) registration and forecast uploads answer 503 with Retry-After and a sentence, and store nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "bridge-replicas-" });
  const kvPath = `${dir}/bridge.kv`;
  const a = await spawnService(env, { kvPath });
  const kv = await Deno.openKv(kvPath);
  try {
    const { malo_id, ...fields } = location(0);
    const other = location(1);
    const put = () =>
      fetch(`${a.url}/v1/market-locations/${malo_id}`, {
        method: "PUT",
        headers: ext,
        body: JSON.stringify(fields),
      });
    const day = addDays(localDayOf(Date.now()), 2);
    const values = Array.from({ length: quarterHourCount(day) }, () => 1);
    const upload = () =>
      fetch(`${a.url}/v1/forecasts`, {
        method: "POST",
        headers: ext,
        body: JSON.stringify({
          forecasts: [{ market_location_id: other.malo_id, delivery_day: day, unit: "kW", values }],
        }),
      });
    const batch = await fetch(`${a.url}/v1/market-locations`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ market_locations: [other] }),
    });
    assert.equal(batch.status, 200, await batch.text());
    // Another replica's turns that do not run out within the budget.
    const live = { holder: "replica-b", until: Date.now() + 60_000 };
    await kv.set(KEYS.masterDataTurn, live);
    await kv.set(KEYS.forecastTurn, live);
    const [r1, r2] = await Promise.all([put(), upload()]);
    for (
      const [r, what] of [[r1, `put market location ${malo_id}`], [r2, "ingest forecasts"]] as const
    ) {
      assert.equal(r.status, 503, what);
      assert.equal(r.headers.get("retry-after"), "1");
      const body = await r.json();
      assert.match(
        body.detail,
        new RegExp(
          `^${what}: still conflicting after 50 attempts, so it was not done; .*try again in 1 s\\.$`,
        ),
      );
    }
    assert.match(a.output().stderr + a.output().stdout, /"kind":"store_contended"/);
    const get = await fetch(`${a.url}/v1/market-locations/${malo_id}`, { headers: ext });
    assert.equal(get.status, 404, await get.text());
    assert.equal((await kv.get(KEYS.forecast(day, other.malo_id))).value, null);
    // Once the turns are given back, the same requests go through.
    await kv.delete(KEYS.masterDataTurn);
    await kv.delete(KEYS.forecastTurn);
    const again = await put();
    assert.equal(again.status, 201, await again.text());
    const uploaded = await upload();
    assert.equal(uploaded.status, 200, await uploaded.text());
  } finally {
    kv.close();
    await a.close();
    await Deno.remove(dir, { recursive: true });
  }
});
