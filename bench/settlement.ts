/**
 * The `settlement` part (issue 27; docs/benchmarks.md, docs/settlement.md), in process on a
 * temp-file KV: the MSCONS import of `BENCH_SETTLE_MSCONS_N` (10,000) locations × one day against
 * the bare KV writes of the same records, and `settleDay` at `BENCH_SETTLE_N` (1,000,000),
 * `BENCH_SETTLE_METERED` (100,000) metered, best of 3, against a bare `kv.list` of the actuals.
 * Goals < 1 s each; peak RSS of this process in the notes.
 * @module
 */
import { meteringInterchange } from "../dev/metering_simulator.ts";
import { type EffectiveConfig, withDefaults } from "../lib/config/fields.ts";
import { deliveryDay } from "../lib/domain/delivery_day.ts";
import { recordVersionSent } from "../lib/fahrplan/history.ts";
import { marketLocationIndexSettled, profileClasses } from "../lib/pipeline/master_data.ts";
import { registeredMarketLocations } from "../lib/pipeline/market_locations.ts";
import { storeActuals } from "../lib/settlement/actuals_store.ts";
import { importActuals, type ImportDeps } from "../lib/settlement/import.ts";
import { RuntimeConfig } from "../lib/config/runtime_config.ts";
import { parseMscons } from "../lib/settlement/mscons.ts";
import { readMscons } from "../lib/settlement/mscons_parallel.ts";
import { storePrices } from "../lib/settlement/prices_store.ts";
import { settleDay } from "../lib/settlement/settle_day.ts";
import { KEYS } from "../lib/store/keys.ts";
import { num, report, type Row, row, tempDir } from "./common.ts";
import { AREAS, benchMalo, writeLocations } from "./portfolio.ts";

const PART = "27 after delivery";
const MSCONS_N = num("BENCH_SETTLE_MSCONS_N", 10_000);
const N = num("BENCH_SETTLE_N", 1_000_000);
const METERED = num("BENCH_SETTLE_METERED", 100_000);
const DAY = "2027-03-10";
const MiB = 1024 * 1024;

const deps = (kv: Deno.Kv) =>
  ({
    kv,
    clock: { now: () => Date.now() },
    events: { append: () => Promise.resolve({}) },
    config: new RuntimeConfig(kv, {}),
  }) as unknown as ImportDeps;

/** Runs `fn` while sampling this process's RSS; returns seconds and the peak RSS in MiB. */
async function measured(fn: () => Promise<unknown>): Promise<{ s: number; peak: number }> {
  let peak = Deno.memoryUsage().rss;
  const timer = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 10);
  const t0 = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return { s: (performance.now() - t0) / 1000, peak: Math.max(peak, Deno.memoryUsage().rss) / MiB };
}

const rows: Row[] = [];
const qh = deliveryDay(DAY).quarterHours.length;

// 1. MSCONS import of MSCONS_N locations × one day.
{
  const dir = await tempDir("bench-mscons-");
  const kv = await Deno.openKv(`${dir.path}/bridge.kv`);
  try {
    await writeLocations(kv, MSCONS_N);
    // The index of registered MaLo-IDs, as a running service keeps it (built on the first lookup;
    // without it the check of the 10,000 locations reads them from the store: about 0.1 s more).
    await kv.set(KEYS.masterDataVersion, new Deno.KvU64(1n));
    await registeredMarketLocations(kv, [benchMalo(0)]);
    await marketLocationIndexSettled(kv);
    const locations = Array.from({ length: MSCONS_N }, (_, i) => ({
      malo_id: benchMalo(i),
      kw: Array.from({ length: qh }, (_, q) => 2 + (q % 8)),
      noise: 0.1,
    }));
    const { text } = meteringInterchange(DAY, locations);
    const bytes = new TextEncoder().encode(text); // as it arrives: a file or a request body
    const one = await measured(() => Promise.resolve(parseMscons(text)));
    const parse = await measured(() => readMscons(bytes));
    const before = Deno.memoryUsage().rss / MiB;
    const imp = await measured(() => importActuals(deps(kv), "mscons", bytes, "bench", "bench"));
    // The storage floor: the same number of records, bare.
    const bare = await measured(async () => {
      const rec = { kwh: new Array(qh).fill(1.5), updated_at: "x", source: "bare" };
      for (let i = 0; i < MSCONS_N; i += 50) {
        const op = kv.atomic();
        for (let j = i; j < Math.min(MSCONS_N, i + 50); j++) op.set(["bare", DAY, j], rec);
        await op.commit();
      }
    });
    const mib = (bytes.length / MiB).toFixed(1);
    const metric = `MSCONS import, ${
      MSCONS_N.toLocaleString("en-US")
    } locations × ${qh} qh (${mib} MiB)`;
    rows.push(row(PART, metric, imp.s, "s", {
      base: ["bare KV writes of the same records", bare.s],
      goal: ["< 1 s", imp.s < 1],
      note: `parse alone ${parse.s.toFixed(3)} s (in one piece on one core ${
        one.s.toFixed(3)
      } s); RSS ${before.toFixed(0)} → peak ${imp.peak.toFixed(0)} MiB`,
    }));
  } finally {
    kv.close();
    await dir.remove();
  }
}

// 2. Settlement of one day at N locations, METERED of them metered.
{
  const dir = await tempDir("bench-settle-");
  const kv = await Deno.openKv(`${dir.path}/bridge.kv`);
  try {
    const t0 = performance.now();
    await writeLocations(kv, N);
    // The master-data version entry, as the app's writes of locations bump it: the class table
    // and the kept location facts follow it (lib/pipeline/master_data.ts, location_facts.ts).
    await kv.set(KEYS.masterDataVersion, new Deno.KvU64(1n));
    await profileClasses(kv); // the class table is built once, as the first pass would
    const start = deliveryDay(DAY).start.epochMilliseconds;
    const series = Array.from({ length: METERED }, (_, i) => ({
      owner: { kind: "market_location" as const, malo_id: benchMalo(i) },
      start,
      kwh: Array.from({ length: qh }, (_, q) => 0.5 + ((i + q) % 9) * 0.1),
      where: "bench",
    }));
    for (let i = 0; i < METERED; i += 5000) {
      await storeActuals(kv, series.slice(i, i + 5000), "bench", Date.now());
    }
    await storePrices(
      kv,
      deliveryDay(DAY).quarterHours.map((q, i) => ({
        start: q.epochMilliseconds,
        short: 50 + i,
        long: 40 + i,
      })),
      "rebap",
      "bench",
      Date.now(),
    );
    for (const area of AREAS) {
      await recordVersionSent(kv, DAY, area, {
        version: 1,
        aggregate_version: 1,
        phase: "day_ahead",
        sent_at: new Date().toISOString(),
        frozen_before: deliveryDay(DAY).start.toString(),
        file: "bench.xml",
        quantities: new Array(qh).fill(100),
      });
    }
    console.log(`setup ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const cfg = withDefaults({}) as unknown as EffectiveConfig;
    // The first pass reads the metered locations' master data; later ones take the kept facts.
    const cold = await measured(() => settleDay(kv, cfg, DAY, Date.now()));
    const before = Deno.memoryUsage().rss / MiB;
    const runs = [];
    for (let r = 0; r < 3; r++) {
      runs.push(await measured(() => settleDay(kv, cfg, DAY, Date.now())));
    }
    const best = Math.min(...runs.map((r) => r.s));
    const peak = Math.max(...runs.map((r) => r.peak));
    const bare = await measured(async () => {
      for await (const _ of kv.list({ prefix: ["actuals", DAY] }, { batchSize: 1000 })) { /* */ }
    });
    const s = await settleDay(kv, cfg, DAY, Date.now());
    const sum = (f: (c: typeof s.areas[number]["completeness"]) => number) =>
      s.areas.reduce((a, x) => a + f(x.completeness), 0);
    const [n, m] = [N.toLocaleString("en-US"), METERED.toLocaleString("en-US")];
    rows.push(
      row(PART, `settlement of a day, ${n} locations (${m} metered), best of 3`, best, "s", {
        base: ["bare kv.list of the day's actuals", bare.s],
        goal: ["< 1 s", best < 1],
        note: `first pass (master data read) ${cold.s.toFixed(3)} s; RSS ${
          before.toFixed(0)
        } → peak ${peak.toFixed(0)} MiB; status ${s.status}, metered ${
          sum((c) => c.metered)
        }, profile-settled ${sum((c) => c.profile_settled)}`,
      }),
    );
  } finally {
    kv.close();
    await dir.remove();
  }
}

report(rows);
