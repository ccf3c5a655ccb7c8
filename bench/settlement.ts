/**
 * Issue 27 — after delivery (docs/settlement.md), in-process on a temp-file KV:
 *
 * 1. MSCONS import: one interchange of `BENCH_SETTLE_MSCONS_N` (10,000) market locations × one
 *    day (96 quarter-hours, written by `dev/metering_simulator.ts`), through `importActuals`
 *    (parse with the `edifact` library, check every location is registered, store per location
 *    and day). Goal < 1 s. Baseline, same run: the bare KV writes of the same 10,000 records
 *    (one `set` each, 50 per atomic: the storage floor). The parse alone is a diagnostic row.
 * 2. Settlement: `settleDay` of one day at `BENCH_SETTLE_N` (1,000,000) market locations, of which
 *    `BENCH_SETTLE_METERED` (100,000) metered, four control areas with a schedule version each and
 *    the day's prices; best of 3 after a first run (whose time, reading the metered locations'
 *    master data, is in the note). Goal < 1 s. Baseline: a bare `kv.list` of
 *    the day's 100,000 actuals records (what the computation must read). Peak RSS of this process
 *    during the runs (sampled every 10 ms) beside the RSS before.
 *
 * Run alone: `deno run -A bench/settlement.ts` (quick: `BENCH_SETTLE_N=50000
 * BENCH_SETTLE_METERED=5000 BENCH_SETTLE_MSCONS_N=1000`)
 * @module
 */
import { meteringInterchange } from "../dev/metering_simulator.ts";
import { type EffectiveConfig, withDefaults } from "../lib/config/fields.ts";
import { deliveryDay } from "../lib/domain/delivery_day.ts";
import { recordVersionSent } from "../lib/fahrplan/history.ts";
import { profileClasses } from "../lib/pipeline/master_data.ts";
import { storeActuals } from "../lib/settlement/actuals_store.ts";
import { importActuals } from "../lib/settlement/import.ts";
import { parseMscons } from "../lib/settlement/mscons.ts";
import { storePrices } from "../lib/settlement/prices_store.ts";
import { settleDay } from "../lib/settlement/settle_day.ts";
import type { ServiceContext } from "../lib/context.ts";
import { KEYS } from "../lib/store/keys.ts";
import { report, type Row, tempDir } from "./common.ts";
import { benchMalo, writeLocations } from "./portfolio.ts";

const PART = "27 after delivery";
const MSCONS_N = Number(Deno.env.get("BENCH_SETTLE_MSCONS_N") ?? 10_000);
const N = Number(Deno.env.get("BENCH_SETTLE_N") ?? 1_000_000);
const METERED = Number(Deno.env.get("BENCH_SETTLE_METERED") ?? 100_000);
const DAY = "2027-03-10";
const AREAS = ["10YDE-RWENET---I", "10YDE-EON------1", "10YDE-ENBW-----N", "10YDE-VE-------2"];
const MiB = 1024 * 1024;

const deps = (kv: Deno.Kv) =>
  ({
    kv,
    clock: { now: () => Date.now() },
    events: { append: () => Promise.resolve({}) },
  }) as unknown as Pick<ServiceContext, "kv" | "clock" | "events">;

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
    const locations = Array.from({ length: MSCONS_N }, (_, i) => ({
      malo_id: benchMalo(i),
      kw: Array.from({ length: qh }, (_, q) => 2 + (q % 8)),
      noise: 0.1,
    }));
    const { text } = meteringInterchange(DAY, locations);
    const parse = await measured(() => Promise.resolve(parseMscons(text)));
    const before = Deno.memoryUsage().rss / MiB;
    const imp = await measured(() => importActuals(deps(kv), "mscons", text, "bench", "bench"));
    // The storage floor: the same number of records, bare.
    const bare = await measured(async () => {
      const rec = { kwh: new Array(qh).fill(1.5), updated_at: "x", source: "bare" };
      for (let i = 0; i < MSCONS_N; i += 50) {
        const op = kv.atomic();
        for (let j = i; j < Math.min(MSCONS_N, i + 50); j++) op.set(["bare", DAY, j], rec);
        await op.commit();
      }
    });
    rows.push({
      part: PART,
      metric: `MSCONS import, ${MSCONS_N.toLocaleString("en-US")} locations × ${qh} qh (${
        (text.length / MiB).toFixed(1)
      } MiB)`,
      value: imp.s,
      unit: "s",
      baseline: "bare KV writes of the same records",
      baselineValue: bare.s,
      ratio: imp.s / bare.s,
      goal: "< 1 s",
      met: imp.s < 1,
      note: `parse alone ${parse.s.toFixed(3)} s; RSS ${before.toFixed(0)} → peak ${
        imp.peak.toFixed(0)
      } MiB`,
    });
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
    // The master-data version entry, as the app's writes of locations bump it (lib/pipeline/
    // master_data.ts): the class table and the kept location facts follow it.
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
    // The first pass after a change of master data reads the metered locations' master data;
    // the next ones take it from the facts kept for that version (lib/pipeline/location_facts.ts).
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
    rows.push({
      part: PART,
      metric: `settlement of a day, ${N.toLocaleString("en-US")} locations (${
        METERED.toLocaleString("en-US")
      } metered), best of 3`,
      value: best,
      unit: "s",
      baseline: "bare kv.list of the day's actuals",
      baselineValue: bare.s,
      ratio: best / bare.s,
      goal: "< 1 s",
      met: best < 1,
      note: `first pass (master data read) ${cold.s.toFixed(3)} s; RSS ${
        before.toFixed(0)
      } → peak ${peak.toFixed(0)} MiB; status ${s.status}, metered ${
        s.areas.reduce((a, x) => a + x.completeness.metered, 0)
      }, profile-settled ${s.areas.reduce((a, x) => a + x.completeness.profile_settled, 0)}`,
    });
  } finally {
    kv.close();
    await dir.remove();
  }
}

report(rows);
