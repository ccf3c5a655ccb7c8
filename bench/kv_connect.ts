/**
 * The `kv_connect` part (issue 28 item 4; docs/benchmarks.md, docs/kv.md "Replicas over KV
 * Connect"): the one-day pass (forecast + aggregate through the rig's app) at `BENCH_KVC_SIZES`
 * (100,000 and 1,000,000) locations on the local KV file, then on the same store served by the KV
 * Connect peer of `dev/kv_connect_server.ts` on loopback, with the peer's round trips per pass.
 * `BENCH_KVC_CUSTOMER_SHARE` (0.01), `BENCH_KVC_STEP_LIMIT_S` (300). Goal: 1M < 10 s.
 * @module
 */
import { addDays, nextOpenDay } from "../lib/domain/delivery_day.ts";
import { report, type Row, row, tempDir } from "./common.ts";
import { benchLocation, locationBatches } from "./portfolio.ts";
import { type App, BATCH, register, runDay, startApp } from "./rig.ts";
import { KV_CONNECT_TOKEN, startKvConnect } from "../tests/support/kv_connect.ts";
import type { KvConnectStats } from "../dev/kv_connect_server.ts";

const SIZES = (Deno.env.get("BENCH_KVC_SIZES") ?? "100000,1000000").split(",").map(Number);
const SHARE = Number(Deno.env.get("BENCH_KVC_CUSTOMER_SHARE") ?? 0.01);
const STEP_LIMIT_MS = Number(Deno.env.get("BENCH_KVC_STEP_LIMIT_S") ?? 300) * 1000;
/** The pass's goal over KV Connect at 1,000,000 locations, seconds (issue 28). */
const GOAL_S = 10;

/** A measured pass: seconds and, over KV Connect, the peer's requests during it. */
interface Pass {
  s: number;
  reads?: number;
  writes?: number;
  bytes?: number;
  /** `prefix: reads (KiB answered)`, most reads first. */
  byPrefix?: string;
}

/** A warm-up day, then the measured day; `count` reads the peer's counters (KV Connect only). */
async function measure(
  app: App,
  n: number,
  days: [string, string],
  count?: () => Promise<KvConnectStats>,
): Promise<Pass> {
  const o = { n, customers: Math.round(n * SHARE), concurrency: 4, through: "aggregate" as const };
  const limitMs = () => STEP_LIMIT_MS;
  await runDay(app, days[0], { ...o, limitMs });
  if (count) {
    // A fresh process on a full store builds its index of registered MaLo-IDs (a list of every
    // location) after the first upload: wait for it, as the local app's was built by registering.
    const r = await fetch(`${app.url}/__bench/settle`, { method: "POST" });
    if (r.status !== 200) throw new Error(`settle: ${r.status} ${await r.text()}`);
    console.log(`${n}: index settled after ${Math.round((await r.json()).waited_ms)} ms`);
  }
  let before: KvConnectStats | undefined;
  let after: typeof before;
  const { times } = await runDay(app, days[1], {
    ...o,
    limitMs,
    around: {
      before: async () => void (before = await count?.()),
      after: async () => void (after = await count?.()),
    },
  });
  const pass: Pass = { s: times.forecast + times.aggregate };
  if (before && after) {
    const d = (k: string) => after!.requests[k] - before!.requests[k];
    pass.reads = d("snapshot_read");
    pass.writes = d("atomic_write");
    pass.bytes = after.bytes_in + after.bytes_out - before.bytes_in - before.bytes_out;
    pass.byPrefix = Object.entries(after.reads_by_prefix)
      .map(([prefix, a]) => {
        const b = before!.reads_by_prefix[prefix] ?? { reads: 0, bytes_out: 0 };
        return { prefix, reads: a.reads - b.reads, kib: (a.bytes_out - b.bytes_out) / 1024 };
      })
      .filter((x) => x.reads > 0)
      .sort((x, y) => y.reads - x.reads)
      .map((x) => `${x.prefix} ${x.reads} (${x.kib.toFixed(0)} KiB)`)
      .join(", ");
  }
  return pass;
}

/** One size: the local pass, then the KV Connect pass on the same store. */
async function size(n: number, days: string[]): Promise<Row[]> {
  const dir = await tempDir(`bench-kvc-${n}-`);
  try {
    const local = await startApp(dir.path);
    let file: Pass;
    try {
      const t0 = performance.now();
      await register(local, locationBatches(n, BATCH), 4, STEP_LIMIT_MS * 2);
      console.log(`${n}: registered in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      file = await measure(local, n, [days[0], days[1]]);
    } finally {
      await local.stop();
    }
    console.log(`${n}: local file pass ${file.s.toFixed(2)} s`);
    const peer = await startKvConnect({ path: local.kvPath });
    let kvc: Pass;
    let largest: KvConnectStats["largest_atomic"];
    try {
      const env = { KV_PATH: peer.url, DENO_KV_ACCESS_TOKEN: KV_CONNECT_TOKEN, BENCH_CONTROL: "1" };
      const remote = await startApp(dir.path, { env });
      try {
        kvc = await measure(remote, n, [days[2], days[3]], () => peer.stats());
        // One full registration batch over KV Connect too: locations n … n + 499, all new.
        const extra = Array.from({ length: BATCH }, (_v, k) => {
          const { updated_at: _, ...input } = benchLocation(n + k, "");
          return input;
        });
        await register(remote, [JSON.stringify({ market_locations: extra })], 1, STEP_LIMIT_MS);
        largest = (await peer.stats()).largest_atomic;
      } finally {
        await remote.stop();
      }
    } finally {
      await peer.close();
    }
    console.log(
      `${n}: KV Connect pass ${
        kvc.s.toFixed(2)
      } s, ${kvc.reads} reads + ${kvc.writes} writes; ${kvc.byPrefix}`,
    );
    const [label, part] = [n.toLocaleString("en"), "28 kv connect"];
    const pass = `one-day pass (forecast + aggregate), ${label} locations`;
    const trips = (kvc.reads ?? 0) + (kvc.writes ?? 0);
    return [
      row(part, `${pass}, local file`, file.s, "s"),
      row(part, `${pass}, KV Connect (loopback)`, kvc.s, "s", {
        base: ["same pass on the local file", file.s],
        goal: n >= 1_000_000 ? [`< ${GOAL_S} s`, kvc.s < GOAL_S] : undefined,
      }),
      row(
        part,
        "round trips of that pass over KV Connect (snapshot reads + atomic writes)",
        trips,
        "requests",
        {
          note: `${kvc.reads} snapshot reads + ${kvc.writes} atomic writes, ${
            ((kvc.bytes ?? 0) / 1024).toFixed(0)
          } KiB in both directions; reads by first key part: ${kvc.byPrefix}; ${
            (kvc.s * 1000 / Math.max(1, trips)).toFixed(2)
          } ms of pass per round trip`,
        },
      ),
      row(
        part,
        "largest atomic write over KV Connect (ingest of 500 forecasts, registration of 500)",
        largest.mutations,
        "mutations",
        {
          goal: [
            "≤ 1,000 mutations, ≤ 10 checks, ≤ 800 KiB",
            largest.mutations <= 1000 && largest.checks <= 10 && largest.bytes <= 800 * 1024,
          ],
          note: `${largest.mutations} mutations, ${largest.checks} checks, ${
            (largest.bytes / 1024).toFixed(0)
          } KiB (each the largest of any write, denokv proto/limits.rs)`,
        },
      ),
    ];
  } finally {
    await dir.remove();
  }
}

const first = nextOpenDay(Date.now() + 3_600_000);
const rows: Row[] = [];
for (const [i, n] of SIZES.entries()) {
  // Four fresh days per size: two on the file, two over KV Connect.
  const days = [0, 1, 2, 3].map((k) => addDays(first, 1 + i * 4 + k));
  rows.push(...await size(n, days));
}
report(rows);
