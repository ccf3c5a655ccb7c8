/**
 * Two replicas on one KV file under concurrent master-data and forecast load (docs/architecture.md,
 * "Writes and concurrency"): two real service processes take single registrations, batch
 * registrations and forecast uploads at the same time. No answer is a 5xx (a 503 would be sent
 * again by the load's client and is counted, but none is expected at this size), every location
 * is registered exactly once with its final fields, and the stored profile class table is that
 * of the stored locations at the current master-data version.
 */
import assert from "node:assert/strict";
import { spawnService } from "../support/service_process.ts";
import { env } from "../support/pipeline.ts";
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
