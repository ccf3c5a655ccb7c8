/**
 * The `replicas` part (docs/benchmarks.md): two service processes on one KV file under the load of
 * `tests/support/replica_load.ts` (`BENCH_REPLICAS_SINGLES`, `_BATCHES`, `_FORECASTS`,
 * `_CONCURRENCY`): answers by class and whether both list every location final. Goal 0 × 5xx.
 * @module
 */
import { num, report, type Row, row } from "./common.ts";
import { spawnService } from "../tests/support/service_process.ts";
import { listAll, runReplicaLoad } from "../tests/support/replica_load.ts";
import { EXT, PROC } from "../tests/support/keys.ts";

const PART = "22 replicas";
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
  const count = (metric: string, value: number, zero = true, note?: string) =>
    row(PART, metric, value, "answers", { goal: zero ? ["0", value === 0] : undefined, note });
  rows = [
    count("2xx", counts.ok2xx, false, `${sent} in ${(ms / 1000).toFixed(1)} s (noisy)`),
    count("503 (sent again after Retry-After)", counts.s503, false),
    count("503 without Retry-After", counts.retryAfterMissing),
    count("other 5xx", counts.other5xx),
    count("other (4xx)", counts.other, true, counts.samples.join(" | ")),
    count("requests without 2xx after 5 resends", counts.failed),
    {
      ...count("locations missing, doubled or not final", wrong, true),
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
