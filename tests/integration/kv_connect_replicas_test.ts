/**
 * Two service processes sharing one KV over KV Connect (docs/kv.md, "Replicas over KV Connect"):
 * `KV_PATH=http://127.0.0.1:<port>` and `DENO_KV_ACCESS_TOKEN`, the peer being denokv's SQLite
 * engine behind `dev/kv_connect_server.ts` (what the `denokv` binary serves). Each replica reads
 * what the other wrote, a config change on one reaches a console's live stream on the other,
 * concurrent writes over both answer no 5xx and store every location once, and a restart of the
 * KV server in the middle of writes and of an orchestrator pass loses nothing and does nothing
 * twice. (One pass per minute with both crons running: kv_connect_cron_test.ts.)
 */
import assert from "node:assert/strict";
import { spawnService } from "../support/service_process.ts";
import { env, ext, proc } from "../support/pipeline.ts";
import { FILES_CHANNEL_ENV } from "../support/fahrplan.ts";
import { call } from "../support/app.ts";
import { PROC } from "../support/keys.ts";
import { openSse } from "../support/sse.ts";
import { startKvConnect } from "../support/kv_connect.ts";
import { listAll, runReplicaLoad } from "../support/replica_load.ts";
import { expectedTable, location } from "../support/profile_portfolio.ts";
import { readClassTable } from "../../lib/pipeline/profile_classes.ts";
import { masterDataVersion } from "../../lib/pipeline/master_data.ts";
import { listMarketLocations } from "../../lib/pipeline/market_locations.ts";

/** The answers of a load that met no trouble: all 2xx, no resend, nothing else. */
const clean = { s503: 0, retryAfterMissing: 0, other5xx: 0, other: 0, samples: [], failed: 0 };

/** The files in the outbox (relative paths, sorted). */
async function outboxFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (d: string, rel: string) => {
    for await (const e of Deno.readDir(d)) {
      if (e.isDirectory) await walk(`${d}/${e.name}`, `${rel}${e.name}/`);
      else found.push(`${rel}${e.name}`);
    }
  };
  await walk(dir, "");
  return found.sort();
}

/** After the servers stopped: the stored locations, profile class table and event ids. */
async function storedFacts(path: string) {
  const kv = await Deno.openKv(path); // the peer's SQLite file is Deno KV's own format
  try {
    const stored = await listMarketLocations(kv);
    const table = await readClassTable(kv);
    const ids: number[] = [];
    for await (const e of kv.list<unknown>({ prefix: ["events"] })) ids.push(Number(e.key[1]));
    const head = (await kv.get<number>(["events_head"])).value;
    return { stored, table, version: await masterDataVersion(kv), ids, head };
  } finally {
    kv.close();
  }
}

Deno.test("KV Connect: two replicas read each other's writes, a config change on one reaches the live stream on the other, 2 × 300 concurrent writes answer no 5xx", async () => {
  const peer = await startKvConnect();
  const a = await spawnService({ ...env, ...peer.serviceEnv }, { kvPath: peer.url });
  const b = await spawnService({ ...env, ...peer.serviceEnv }, { kvPath: peer.url });
  let closed = false;
  try {
    // Reads across replicas: written through A, read through B (and the other way round).
    const one = location(1);
    const put = await call(`${a.url}/v1/market-locations/${one.malo_id}`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ ...one, malo_id: undefined }),
    });
    assert.equal(put.status, 201, JSON.stringify(put.body));
    const got = await call(`${b.url}/v1/market-locations/${one.malo_id}`, { headers: ext });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal((got.body as { control_area: string }).control_area, one.control_area);
    const del = await call(`${b.url}/v1/market-locations/${one.malo_id}`, {
      method: "DELETE",
      headers: ext,
    });
    assert.ok(del.status < 300, JSON.stringify(del.body));
    const gone = await call(`${a.url}/v1/market-locations/${one.malo_id}`, { headers: ext });
    assert.equal(gone.status, 404);

    // The live stream across replicas: a console on B, the config changed through A.
    const token = await call(`${b.url}/v1/console/stream-token`, {
      method: "POST",
      headers: { "x-api-key": PROC },
    });
    assert.equal(token.status, 200);
    const sse = await openSse(
      `${b.url}/v1/console/events/stream?token=${(token.body as { token: string }).token}`,
    );
    try {
      assert.equal(sse.status, 200);
      await sse.read((m) => m.some((x) => x.retry !== undefined), 5_000);
      const changed = await call(`${a.url}/v1/console/config`, {
        method: "PUT",
        headers: proc,
        body: JSON.stringify({ sftp_host: "sftp.replica-a.example" }),
      });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      const seen = await sse.read(
        (m) => m.some((x) => x.data?.includes("sftp.replica-a.example")),
        10_000,
      );
      const event = seen.find((x) => x.data?.includes("sftp.replica-a.example"));
      assert.ok(event, `B's stream did not show A's config change: ${JSON.stringify(seen)}`);
      assert.equal(JSON.parse(event.data!).kind, "config_changed");
    } finally {
      await sse.close();
    }
    const onB = await call(`${b.url}/v1/console/config`, { headers: proc });
    assert.equal(
      (onB.body as { fields: Record<string, { value: unknown }> }).fields.sftp_host.value,
      "sftp.replica-a.example",
    );

    // Concurrent writes over both replicas.
    const { counts, expected } = await runReplicaLoad([a.url, b.url], {
      singles: 300,
      batches: 2,
      batchSize: 100,
      forecasts: 6,
      forecastSize: 50,
      concurrency: 8,
    });
    assert.deepEqual({ ...counts, ok2xx: undefined }, { ...clean, ok2xx: undefined });
    assert.equal(counts.ok2xx, 1 + 2 * (300 + 4 + 6));
    for (const replica of [a, b]) {
      const listed = await listAll(replica.url);
      assert.equal(listed.size, expected.size);
      for (const [id, want] of expected) {
        const { updated_at: _, ...fields } = listed.get(id) ?? {};
        assert.deepEqual(fields, want, id);
      }
    }
    const served = await peer.stats();
    assert.ok(served.requests.watch >= 2, `each replica watches: ${JSON.stringify(served)}`);
    // Within denokv's limits (proto/limits.rs), which the engine would have refused with a 400.
    const { largest_atomic: big } = served;
    assert.ok(big.mutations > 100 && big.mutations <= 1000, JSON.stringify(big));
    assert.ok(big.checks >= 1 && big.checks <= 10, JSON.stringify(big));
    assert.ok(big.bytes <= 800 * 1024, JSON.stringify(big));
    await b.close();
    await a.close();
    await peer.close({ keep: true });
    closed = true;
    const facts = await storedFacts(peer.path);
    assert.equal(facts.stored.length, expected.size);
    assert.equal(facts.table.version, facts.version);
    assert.deepEqual(facts.table.table, expectedTable(facts.stored));
    assert.deepEqual(facts.ids, Array.from({ length: facts.head ?? 0 }, (_, i) => i + 1));
  } finally {
    if (!closed) {
      await b.close();
      await a.close();
    }
    await peer.close();
  }
});

Deno.test("KV Connect: the KV server killed and restarted during writes and an orchestrator pass → every write stored once, the pass done once, no 5xx", async () => {
  const peer = await startKvConnect();
  const outbox = await Deno.makeTempDir({ prefix: "bridge-kvc-outbox-" });
  const serviceEnv = {
    ...env,
    ...peer.serviceEnv,
    OUTBOX_DIR: outbox,
    ORCHESTRATOR_HORIZON_DAYS: "1",
    // Schedules are handed over as files (into the outbox): without a channel the submission of
    // the horizon's day fails on every pass from midnight to gate closure (Berlin), and the pass
    // would always leave work.
    ...FILES_CHANNEL_ENV,
  };
  const a = await spawnService(serviceEnv, { kvPath: peer.url });
  const b = await spawnService(serviceEnv, { kvPath: peer.url });
  let closed = false;
  try {
    // Load on both replicas; 300 ms in, the KV server dies and comes back 1.5 s later.
    const load = runReplicaLoad([a.url, b.url], {
      singles: 200,
      batches: 2,
      batchSize: 100,
      forecasts: 4,
      forecastSize: 50,
      concurrency: 6,
    });
    let loaded = false;
    load.then(() => loaded = true, () => {});
    await new Promise((r) => setTimeout(r, 300));
    await peer.kill();
    assert.equal(loaded, false, "the load was over before the KV server went away");
    await new Promise((r) => setTimeout(r, 1_500));
    await peer.start();
    const { counts, expected } = await load;
    assert.deepEqual({ ...counts, ok2xx: undefined }, { ...clean, ok2xx: undefined });
    assert.equal(counts.ok2xx, 1 + 2 * (200 + 4 + 4));

    // A pass asked for while the store is away again: it waits for it, then runs once.
    await peer.kill();
    const pass = call(`${a.url}/v1/orchestrate`, { method: "POST", headers: proc });
    await new Promise((r) => setTimeout(r, 1_500));
    await peer.start();
    const first = await pass;
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const ranFirst = (first.body as { days: { delivery_day: string; ran: string[] }[] }).days;
    assert.ok(ranFirst.some((d) => d.ran.includes("publish")), JSON.stringify(first.body));
    const published = await outboxFiles(outbox);

    // Nothing lost: both replicas list every location with its final fields; the pass left
    // nothing to do (a pass on the other replica runs no step), nothing was done twice.
    for (const replica of [a, b]) {
      const listed = await listAll(replica.url);
      assert.equal(listed.size, expected.size);
      for (const [id, want] of expected) {
        const { updated_at: _, ...fields } = listed.get(id) ?? {};
        assert.deepEqual(fields, want, id);
      }
    }
    const again = await call(`${b.url}/v1/orchestrate`, { method: "POST", headers: proc });
    assert.equal(again.status, 200);
    assert.deepEqual((again.body as { days: unknown[] }).days, [], "the first pass left work");
    assert.deepEqual(await outboxFiles(outbox), published, "a schedule was published twice");
    assert.ok(published.length > 0);
    await b.close();
    await a.close();
    await peer.close({ keep: true });
    closed = true;
    const facts = await storedFacts(peer.path);
    assert.equal(facts.stored.length, expected.size);
    assert.equal(facts.table.version, facts.version);
    assert.deepEqual(facts.table.table, expectedTable(facts.stored));
    // The event log has every id once, no gap: no append was lost or applied twice.
    assert.deepEqual(facts.ids, Array.from({ length: facts.head ?? 0 }, (_, i) => i + 1));
  } finally {
    if (!closed) {
      await b.close();
      await a.close();
    }
    await peer.close();
    await Deno.remove(outbox, { recursive: true });
  }
});
