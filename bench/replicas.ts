/**
 * Issue 22, item 3 — no 5xx under replica contention: two service processes (`main.ts`, as
 * deployed, KV opened with the lock retry) on one temp KV file take, each at the same time,
 * `BENCH_REPLICAS_SINGLES` (5,000) single writes (`PUT /v1/market-locations/{id}`, half the
 * locations each created and then replaced), `BENCH_REPLICAS_BATCHES` (10) batch registrations
 * of 500 sent twice (created, replaced) and `BENCH_REPLICAS_FORECASTS` (20) forecast uploads of
 * 250 locations, `BENCH_REPLICAS_CONCURRENCY` (8) requests in flight per process
 * (`tests/support/replica_load.ts`). Prints the answers counted 2xx / 503 / other 5xx / other,
 * and whether every location listed by both processes carries its final fields. Goal: 0 × 5xx
 * (a 503 is allowed past the retry budget, sent again by the client, and reported).
 *
 * Counts are what matter here; the duration is printed for orientation only (noisy on a shared
 * machine).
 *
 * Run: `deno task bench -- replicas`, or alone `deno run -A bench/replicas.ts`
 * @module
 */
import { report, type Row } from "./common.ts";
import { spawnService } from "../tests/support/service_process.ts";
import { listAll, runReplicaLoad } from "../tests/support/replica_load.ts";
import { EXT, PROC } from "../tests/support/keys.ts";

const PART = "22 replicas";
const num = (name: string, dflt: number) => Number(Deno.env.get(name) ?? dflt);
const size = {
  singles: num("BENCH_REPLICAS_SINGLES", 5_000),
  batches: num("BENCH_REPLICAS_BATCHES", 10),
  batchSize: 500,
  forecasts: num("BENCH_REPLICAS_FORECASTS", 20),
  forecastSize: 250,
  concurrency: num("BENCH_REPLICAS_CONCURRENCY", 8),
};
const env = {
  PROCESS_API_KEYS: `ops:${PROC}`,
  EXTERNAL_API_KEYS: `acme:${EXT}`,
  RATE_LIMIT_PER_MINUTE: "0",
};

const dir = await Deno.makeTempDir({ prefix: "bench-replicas-" });
const kvPath = `${dir}/bridge.kv`;
const a = await spawnService(env, { kvPath });
const b = await spawnService(env, { kvPath });
let rows: Row[];
try {
  const { counts, expected, ms } = await runReplicaLoad([a.url, b.url], size);
  let wrong = 0;
  for (const replica of [a, b]) {
    const listed = await listAll(replica.url);
    if (listed.size !== expected.size) wrong += Math.abs(listed.size - expected.size);
    for (const [id, want] of expected) {
      const got = listed.get(id);
      const { updated_at: _, ...fields } = got ?? {};
      if (!got || JSON.stringify(fields) !== JSON.stringify(want)) wrong++;
    }
  }
  const sent = `2 × (${size.singles} single writes + ${size.batches * 2} batches of ` +
    `${size.batchSize} + ${size.forecasts} forecast uploads of ${size.forecastSize})`;
  const row = (metric: string, value: number, goal?: string, met?: boolean): Row => ({
    part: PART,
    metric,
    value,
    unit: "answers",
    goal,
    met,
  });
  rows = [
    { ...row("2xx", counts.ok2xx), note: `${sent} in ${(ms / 1000).toFixed(1)} s (noisy)` },
    row("503 (sent again after Retry-After)", counts.s503),
    row("503 without Retry-After", counts.retryAfterMissing, "0", counts.retryAfterMissing === 0),
    row("other 5xx", counts.other5xx, "0", counts.other5xx === 0),
    {
      ...row("other (4xx)", counts.other, "0", counts.other === 0),
      note: counts.samples.join(" | "),
    },
    row("requests without 2xx after 5 resends", counts.failed, "0", counts.failed === 0),
    {
      ...row("locations missing, doubled or not final", wrong, "0", wrong === 0),
      unit: "locations",
      note: `${expected.size} locations expected, listed by both processes`,
    },
  ];
} finally {
  await b.close();
  await a.close();
  await Deno.remove(dir, { recursive: true });
}
report(rows);
