/**
 * Issue 5 — generate + aggregate one delivery day for `BENCH_LOCATIONS` (100,000) market
 * locations (mixed profiles, four control areas) through the real KV store (temp file):
 * `generateForecasts` then `aggregateDay` (lib/pipeline), timed separately; peak RSS sampled
 * every 20 ms with `Deno.memoryUsage().rss` and read as VmHWM from /proc (reset before the run
 * where the kernel allows).
 *
 * Baseline (the ratio), same run and store: the bare KV cost of the data the app must store and
 * read — a bare `kv.list` of the 100k forecast records the app stored, plus a bare atomic write
 * of those same records again under another prefix (400 per atomic, as generate does). Since
 * generated forecasts are stored as profile references (`ProfileForecast` in
 * lib/pipeline/forecasts.ts, ~150 bytes, values computed on read), that is what the baseline
 * lists and writes. Neither side's listing of the 100k market locations is in the baseline.
 *
 * Diagnostic row, same run: the floor of the earlier layout, the same list + write with every
 * record holding its 92/96/100 values as a plain number array (what the app stored before), so
 * the gain of the layout itself stays visible.
 *
 * Run alone: `deno run -A bench/pipeline_day.ts`
 * @module
 */
import { aggregateDay } from "../lib/pipeline/aggregate.ts";
import { generateForecasts } from "../lib/pipeline/generate.ts";
import { nextOpenDay } from "../lib/domain/delivery_day.ts";
import { forecastValues, type StoredForecast } from "../lib/pipeline/forecasts.ts";
import { report, type Row, tempDir } from "./common.ts";
import { AREAS, writeLocations } from "./portfolio.ts";

const PART = "5 generate+aggregate";
const N = Number(Deno.env.get("BENCH_LOCATIONS") ?? 100_000);
const MiB = 1024 * 1024;

function vmHwm(): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export async function main(): Promise<Row[]> {
  const dir = await tempDir("bench-pipeline-");
  const kv = await Deno.openKv(`${dir.path}/bridge.kv`);
  try {
    const day = nextOpenDay(Date.now());
    let t = performance.now();
    await writeLocations(kv, N);
    console.log(`wrote ${N} market locations in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    try {
      Deno.writeTextFileSync("/proc/self/clear_refs", "5"); // resets VmHWM
    } catch { /* not allowed here: VmHWM then includes the set-up */ }
    let peak = Deno.memoryUsage().rss;
    const sampler = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 20);
    const nowMs = Date.now();
    t = performance.now();
    const gen = await generateForecasts(kv, day, { by: "bench", nowMs, region: "DE" });
    const genS = (performance.now() - t) / 1000;
    t = performance.now();
    const agg = await aggregateDay(kv, day, { by: "bench", nowMs, activeAreas: AREAS });
    const aggS = (performance.now() - t) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, Deno.memoryUsage().rss);
    const hwm = vmHwm();
    if (gen.generated !== N || agg.counts.market_locations !== N) {
      throw new Error(`generated ${gen.generated}, aggregated ${agg.counts.market_locations}`);
    }

    // Baseline: list the stored forecast records, write the same records again elsewhere.
    const bare = async (prefix: string, toValue: (v: StoredForecast) => unknown) => {
      let t0 = performance.now();
      const records: unknown[] = [];
      for await (
        const e of kv.list<StoredForecast>({ prefix: ["forecasts", day] }, { batchSize: 1000 })
      ) records.push(e.value);
      const list = (performance.now() - t0) / 1000;
      const values = records.map((r) => toValue(r as StoredForecast)); // not timed
      t0 = performance.now();
      for (let i = 0; i < values.length; i += 400) {
        const op = kv.atomic();
        for (let j = i; j < Math.min(values.length, i + 400); j++) {
          op.set([prefix, day, j], values[j]);
        }
        if (!(await op.commit()).ok) throw new Error("baseline write failed");
      }
      return [list, (performance.now() - t0) / 1000];
    };
    const [listS, writeS] = await bare("bench_forecasts", (r) => r);
    // Diagnostic: the same with the values as plain arrays (the earlier layout), listed back.
    const [, oldWriteS] = await bare("bench_values", (r) => ({
      values: forecastValues(r, day),
      source: r.source,
      received_at: r.received_at,
      by: r.by,
    }));
    t = performance.now();
    let listed = 0;
    for await (const _ of kv.list({ prefix: ["bench_values", day] }, { batchSize: 1000 })) {
      listed++;
    }
    const oldListS = (performance.now() - t) / 1000;
    if (listed !== N) throw new Error(`diagnostic listed ${listed}`);
    const baseS = listS + writeS;
    console.log(
      `${day}: generate ${genS.toFixed(2)} s, aggregate ${aggS.toFixed(2)} s; baseline list ${
        listS.toFixed(2)
      } s + write ${writeS.toFixed(2)} s; earlier layout list ${oldListS.toFixed(2)} s + write ${
        oldWriteS.toFixed(2)
      } s; peak rss sampled ${(peak / MiB).toFixed(0)} MiB, VmHWM ${
        hwm ? (hwm / MiB).toFixed(0) : "?"
      } MiB`,
    );
    const total = genS + aggS;
    const peakBytes = Math.max(peak, hwm ?? 0);
    return [
      {
        part: PART,
        metric: `generateForecasts, ${N} locations`,
        value: genS,
        unit: "s",
        baseline: "bare atomic write of the 100k stored records",
        baselineValue: writeS,
        ratio: genS / writeS,
      },
      {
        part: PART,
        metric: `aggregateDay, ${N} locations`,
        value: aggS,
        unit: "s",
        baseline: "bare kv.list of the 100k stored records",
        baselineValue: listS,
        ratio: aggS / listS,
      },
      {
        part: PART,
        metric: `generate + aggregate, ${N} locations`,
        value: total,
        unit: "s",
        baseline: "bare list + write",
        baselineValue: baseS,
        ratio: total / baseS,
        goal: "< 5 s",
        met: total < 5,
      },
      {
        part: PART,
        metric: "diagnostic: earlier layout floor, list + write of 100k value arrays",
        value: oldListS + oldWriteS,
        unit: "s",
        baseline: "bare list + write",
        baselineValue: baseS,
        ratio: (oldListS + oldWriteS) / baseS,
      },
      {
        part: PART,
        metric: "peak RSS during generate + aggregate",
        value: peakBytes / MiB,
        unit: "MiB",
        goal: "< 1024 MiB",
        met: peakBytes < 1024 * MiB,
        note: `sampled rss max ${(peak / MiB).toFixed(0)} MiB, VmHWM ${
          hwm ? (hwm / MiB).toFixed(0) : "n/a"
        } MiB`,
      },
    ];
  } finally {
    kv.close();
    await dir.remove();
  }
}

if (import.meta.main) report(await main());
