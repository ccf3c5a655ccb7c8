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
 * that are not counted; the first upload after a start has the app build its in-memory index of
 * registered MaLo-IDs (a one-off per process, `lib/pipeline/registered_ids.ts`), and the timing
 * starts once that is done (`POST /__bench/settle`; the wait is printed in the note). Servers run pinned to core 0, this process (the clients) to core 1
 * (`taskset`); `BENCH_ROUNDS` (3) rounds interleave bare parse+store, app and bare parse, each
 * round on its own delivery day, and the best of each counts. After each app round the same
 * bodies are posted again: every forecast unchanged, the idempotent re-post (a row of its own). Bounded: at most `N` forecasts per target, 300 s per target.
 *
 * Env: `BENCH_INGEST_LOCATIONS` (100000), `BENCH_INGEST_BATCH` (500), `BENCH_INGEST_CONCURRENCY`
 * (4), `BENCH_CPU_PROF=<dir>` (profile the app; prints a summary).
 *
 * Run alone: `deno run -A bench/ingest_http.ts`
 * @module
 */
import { addDays, nextOpenDay, quarterHourCount } from "../lib/domain/delivery_day.ts";
import { pinLoadGenerator } from "./million_http.ts";
import { printProfiles } from "./cpuprofile.ts";
import { report, type Row, spawnServer, tempDir } from "./common.ts";
import { forecastBatches, postAll, writeLocations } from "./portfolio.ts";

const PART = "5 ingest over HTTP";
const N = Number(Deno.env.get("BENCH_INGEST_LOCATIONS") ?? 100_000);
const BATCH = Number(Deno.env.get("BENCH_INGEST_BATCH") ?? 500);
const CONCURRENCY = Number(Deno.env.get("BENCH_INGEST_CONCURRENCY") ?? 4);
const TARGET_LIMIT_S = 300;
/** Interleaved rounds (`BENCH_ROUNDS`, default 3); the best of each target counts. */
const ROUNDS = Number(Deno.env.get("BENCH_ROUNDS") ?? 3);
const WARM = 2 * BATCH;
/** `BENCH_CPU_PROF=<dir>`: run the app with `--cpu-prof` and print where its time went. */
const PROF_DIR = Deno.env.get("BENCH_CPU_PROF");

export async function main(): Promise<Row[]> {
  const pinned = await pinLoadGenerator();
  console.log(pinned);
  const dir = await tempDir("bench-ingest-");
  const key = `bench-ext-${crypto.randomUUID()}`;
  const first = nextOpenDay(Date.now());
  // One delivery day per round (a round re-posting a day would measure the idempotent path).
  const days = Array.from({ length: ROUNDS }, (_, r) => addDays(first, r));
  try {
    // Locations 0..N+WARM-1: the last WARM are the warm-up's.
    const kv = await Deno.openKv(`${dir.path}/bridge.kv`);
    await writeLocations(kv, N + WARM);
    kv.close();
    const bodiesOf = (day: string) => {
      const all = forecastBatches(N + WARM, day, quarterHourCount(day), BATCH);
      return { warm: all.slice(-(WARM / BATCH)), bodies: all.slice(0, -(WARM / BATCH)) };
    };
    const sample = bodiesOf(first).bodies;
    const mib = sample.reduce((a, b) => a + b.length, 0) / 1024 / 1024;
    console.log(`${N} forecasts in ${sample.length} bodies of ${BATCH}, ${mib.toFixed(0)} MiB`);

    const post = async (
      name: string,
      url: string,
      bodies: string[],
      headers: Record<string, string>,
    ) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const s = await Promise.race([
        postAll(url, bodies, headers, CONCURRENCY),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`${name}: over ${TARGET_LIMIT_S} s`)),
            TARGET_LIMIT_S * 1000,
          );
        }),
      ]).finally(() => clearTimeout(timer));
      console.log(`${name}: ${N} forecasts in ${s.toFixed(2)} s = ${(N / s).toFixed(0)}/s`);
      return s;
    };
    const measure = async (
      name: string,
      script: string,
      env: Record<string, string>,
      path: string,
      headers: Record<string, string>,
      day: string,
      again = false,
      settle = false,
    ) => {
      const prof = PROF_DIR && script.endsWith("app.ts");
      const server = await spawnServer(
        script,
        env,
        prof ? ["--cpu-prof", `--cpu-prof-dir=${PROF_DIR}`] : [],
        { pinned: true },
      );
      try {
        const { warm, bodies } = bodiesOf(day);
        await post(`${name} warm-up`, `${server.url}${path}`, warm, headers);
        if (settle) {
          const r = await fetch(`${server.url}/__bench/settle`, { method: "POST" });
          const { waited_ms } = await r.json() as { waited_ms: number };
          settledMs = Math.max(settledMs, waited_ms);
          console.log(`${name}: waited ${waited_ms.toFixed(0)} ms for the MaLo-ID index`);
        }
        const s = await post(name, `${server.url}${path}`, bodies, headers);
        // The same bodies again: every forecast unchanged (the idempotent path).
        const r = again
          ? await post(`${name} re-post`, `${server.url}${path}`, bodies, headers)
          : 0;
        return { s, r };
      } finally {
        await server.stop();
      }
    };
    const bare = (mode: string, day: string) =>
      measure(
        `bare ${mode} (${day})`,
        "bench/servers/bare.ts",
        { BARE_MODE: mode, KV_PATH: `${dir.path}/bare.kv` },
        "/",
        {},
        day,
      );
    const app = (day: string) =>
      measure(
        `app (${day})`,
        "bench/servers/app.ts",
        {
          KV_PATH: `${dir.path}/bridge.kv`,
          EXTERNAL_API_KEYS: `customer:${key}`,
          RATE_LIMIT_PER_MINUTE: "0",
          BENCH_CONTROL: "1",
        },
        "/v1/forecasts",
        { "x-api-key": key },
        day,
        true,
        true,
      );
    // Rounds interleaved, best of each: bare parse+store, app, bare parse.
    /** Longest wait for the app's index of registered MaLo-IDs after its warm-up (ms). */
    let settledMs = 0;
    let storeS = Infinity, appS = Infinity, repostS = Infinity, parseS = Infinity;
    for (const day of days) {
      storeS = Math.min(storeS, (await bare("store", day)).s);
      const a = await app(day);
      appS = Math.min(appS, a.s);
      repostS = Math.min(repostS, a.r);
      parseS = Math.min(parseS, (await bare("parse", day)).s);
    }

    // The app really stored them: count the forecasts of each day.
    const check = await Deno.openKv(`${dir.path}/bridge.kv`);
    for (const day of days) {
      let stored = 0;
      for await (const _ of check.list({ prefix: ["forecasts", day] }, { batchSize: 1000 })) {
        stored++;
      }
      if (stored !== N + WARM) {
        check.close();
        throw new Error(`app stored ${stored} forecasts for ${day}, expected ${N + WARM}`);
      }
    }
    check.close();

    if (PROF_DIR) await printProfiles(PROF_DIR);
    const rate = N / appS;
    const batches = sample.length;
    return [
      {
        part: PART,
        metric:
          `POST /v1/forecasts, ${N} forecasts in batches of ${BATCH}, ${CONCURRENCY} clients, API key (best of ${ROUNDS})`,
        value: rate,
        unit: "forecasts/s",
        baseline: "bare parse+store",
        baselineValue: N / storeS,
        ratio: rate / (N / storeS),
        goal: ">= 0.5x",
        met: rate / (N / storeS) >= 0.5,
        note: `app ${appS.toFixed(2)} s (${(appS / batches * 1000).toFixed(1)} ms/batch); ` +
          `bare parse+store ${storeS.toFixed(2)} s (${
            (storeS / batches * 1000).toFixed(1)
          } ms/batch); ` +
          `bare parse ${parseS.toFixed(2)} s; after the warm-up the app built its index of ` +
          `registered MaLo-IDs (once per start) in at most ${
            settledMs.toFixed(0)
          } ms more; ${pinned}`,
      },
      {
        part: PART,
        metric: `the same bodies posted again (every forecast unchanged)`,
        value: N / repostS,
        unit: "forecasts/s",
        baseline: "bare parse+store",
        baselineValue: N / storeS,
        ratio: (N / repostS) / (N / storeS),
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
