/**
 * Issue 5 — forecast ingestion over HTTP: `POST /v1/forecasts` with `{forecasts: [...]}` batches
 * of `BENCH_INGEST_BATCH` (500) customer forecasts (96-ish values each, the next open delivery
 * day), `BENCH_INGEST_LOCATIONS` (100,000) forecasts in all, sent by `BENCH_INGEST_CONCURRENCY`
 * (4) concurrent clients with an external API key, to the real app in its own process
 * (`bench/servers/app.ts`, temp-file KV, rate limit off). The market locations are written into
 * the app's KV file before it starts (`bench/portfolio.ts`), so only ingestion is timed.
 *
 * Baselines, same run, same bodies, same client, each server in its own process:
 * - `bare parse+store` (the ratio): plain `Deno.serve` that JSON-parses the body and writes every
 *   forecast plus a per-day counter in one `kv.atomic()` to its own KV file before answering
 *   (`bench/servers/bare.ts`, `BARE_MODE=store`) — the least any durable ingestion must do;
 * - `bare parse` (diagnostic): the same server answering after `req.json()`, no storage — the
 *   HTTP transfer + JSON parse floor.
 *
 * The app additionally validates every forecast (zod), checks that the locations exist and reads
 * their previous forecasts (KV `getMany`), serialises per delivery day, checks the day state and
 * appends a `forecast_received` event. Every run starts with a two-batch warm-up on locations
 * that are not counted. Bounded: at most `N` forecasts per target, 300 s per target.
 *
 * Env: `BENCH_INGEST_LOCATIONS` (100000), `BENCH_INGEST_BATCH` (500), `BENCH_INGEST_CONCURRENCY`
 * (4), `BENCH_CPU_PROF=<dir>` (profile the app; prints a summary).
 *
 * Run alone: `deno run -A bench/ingest_http.ts`
 * @module
 */
import { nextOpenDay, quarterHourCount } from "../lib/domain/delivery_day.ts";
import { printProfiles } from "./cpuprofile.ts";
import { report, type Row, spawnServer, tempDir } from "./common.ts";
import { forecastBatches, postAll, writeLocations } from "./portfolio.ts";

const PART = "5 ingest over HTTP";
const N = Number(Deno.env.get("BENCH_INGEST_LOCATIONS") ?? 100_000);
const BATCH = Number(Deno.env.get("BENCH_INGEST_BATCH") ?? 500);
const CONCURRENCY = Number(Deno.env.get("BENCH_INGEST_CONCURRENCY") ?? 4);
const TARGET_LIMIT_S = 300;
const WARM = 2 * BATCH;
/** `BENCH_CPU_PROF=<dir>`: run the app with `--cpu-prof` and print where its time went. */
const PROF_DIR = Deno.env.get("BENCH_CPU_PROF");

export async function main(): Promise<Row[]> {
  const dir = await tempDir("bench-ingest-");
  const key = `bench-ext-${crypto.randomUUID()}`;
  const day = nextOpenDay(Date.now());
  const qh = quarterHourCount(day);
  try {
    // Locations 0..N+WARM-1: the last WARM are the warm-up's.
    const kv = await Deno.openKv(`${dir.path}/bridge.kv`);
    await writeLocations(kv, N + WARM);
    kv.close();
    const all = forecastBatches(N + WARM, day, qh, BATCH);
    const warm = all.slice(-(WARM / BATCH));
    const bodies = all.slice(0, -(WARM / BATCH));
    const mib = bodies.reduce((a, b) => a + b.length, 0) / 1024 / 1024;
    console.log(
      `${day} (${qh} quarter-hours): ${N} forecasts in ${bodies.length} bodies, ${
        mib.toFixed(0)
      } MiB`,
    );

    const measure = async (
      name: string,
      script: string,
      env: Record<string, string>,
      path: string,
      headers: Record<string, string>,
    ) => {
      const prof = PROF_DIR && script.endsWith("app.ts");
      const server = await spawnServer(
        script,
        env,
        prof ? ["--cpu-prof", `--cpu-prof-dir=${PROF_DIR}`] : [],
      );
      try {
        await postAll(`${server.url}${path}`, warm, headers, CONCURRENCY);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const s = await Promise.race([
          postAll(`${server.url}${path}`, bodies, headers, CONCURRENCY),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`${name}: over ${TARGET_LIMIT_S} s`)),
              TARGET_LIMIT_S * 1000,
            );
          }),
        ]).finally(() => clearTimeout(timer));
        console.log(`${name}: ${N} forecasts in ${s.toFixed(2)} s = ${(N / s).toFixed(0)}/s`);
        return s;
      } finally {
        await server.stop();
      }
    };
    const parseS = await measure(
      "bare parse",
      "bench/servers/bare.ts",
      { BARE_MODE: "parse" },
      "/",
      {},
    );
    const storeS = await measure(
      "bare parse+store",
      "bench/servers/bare.ts",
      {
        BARE_MODE: "store",
        KV_PATH: `${dir.path}/bare.kv`,
      },
      "/",
      {},
    );
    const appS = await measure(
      "app",
      "bench/servers/app.ts",
      {
        KV_PATH: `${dir.path}/bridge.kv`,
        EXTERNAL_API_KEYS: `customer:${key}`,
        RATE_LIMIT_PER_MINUTE: "0",
      },
      "/v1/forecasts",
      { "x-api-key": key },
    );

    // The app really stored them: count the forecasts of the day.
    const check = await Deno.openKv(`${dir.path}/bridge.kv`);
    let stored = 0;
    for await (const _ of check.list({ prefix: ["forecasts", day] }, { batchSize: 1000 })) stored++;
    check.close();
    if (stored !== N + WARM) {
      throw new Error(`app stored ${stored} forecasts, expected ${N + WARM}`);
    }

    if (PROF_DIR) await printProfiles(PROF_DIR);
    const rate = N / appS;
    return [
      {
        part: PART,
        metric:
          `POST /v1/forecasts, ${N} forecasts in batches of ${BATCH}, ${CONCURRENCY} clients, API key`,
        value: rate,
        unit: "forecasts/s",
        baseline: "bare parse+store",
        baselineValue: N / storeS,
        ratio: rate / (N / storeS),
        note: `app ${appS.toFixed(2)} s (${(appS / bodies.length * 1000).toFixed(0)} ms/batch); ` +
          `bare parse+store ${storeS.toFixed(2)} s; bare parse ${parseS.toFixed(2)} s; ` +
          `${stored} forecasts stored (incl. ${WARM} warm-up)`,
      },
      {
        part: PART,
        metric: `diagnostic: bare server JSON-parsing the same bodies, no storage`,
        value: N / parseS,
        unit: "forecasts/s",
        baseline: "bare parse+store",
        baselineValue: N / storeS,
        ratio: (N / parseS) / (N / storeS),
      },
    ];
  } finally {
    await dir.remove();
  }
}

if (import.meta.main) report(await main());
