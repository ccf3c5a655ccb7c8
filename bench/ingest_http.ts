/**
 * The `ingest_http` part (docs/benchmarks.md, "The parts"): `BENCH_INGEST_LOCATIONS` (100,000)
 * forecasts in `POST /v1/forecasts` batches of `BENCH_INGEST_BATCH` (500) from
 * `BENCH_INGEST_CONCURRENCY` (4) clients, against the bare `store` and `parse` servers, best of
 * `BENCH_ROUNDS` (3) interleaved rounds; then the same bodies again. Goal ≥ 0.5× bare store.
 * @module
 */
import { addDays, nextOpenDay } from "../lib/domain/delivery_day.ts";
import { num, pinLoadGenerator, report, type Row, row, spawnServer, tempDir } from "./common.ts";
import { call, sendAll } from "./http.ts";
import { printProfiles } from "./profile.ts";
import { forecastBatches, writeLocations } from "./portfolio.ts";
import { key, startApp } from "./rig.ts";

const PART = "5 ingest over HTTP";
const N = num("BENCH_INGEST_LOCATIONS", 100_000);
const BATCH = num("BENCH_INGEST_BATCH", 500);
const CONCURRENCY = num("BENCH_INGEST_CONCURRENCY", 4);
const ROUNDS = num("BENCH_ROUNDS", 3);
const WARM = 2 * BATCH;

/** Runs the part; its rows. */
export async function main(): Promise<Row[]> {
  const pinned = await pinLoadGenerator();
  const dir = await tempDir("bench-ingest-");
  const first = nextOpenDay(Date.now());
  const days = Array.from({ length: ROUNDS }, (_, r) => addDays(first, r));
  try {
    const kv = await Deno.openKv(`${dir.path}/bridge.kv`);
    await writeLocations(kv, N + WARM); // the last WARM are the warm-up's
    kv.close();
    const bodiesOf = (day: string) => {
      const all = forecastBatches(N + WARM, day, BATCH);
      return { warm: all.slice(-(WARM / BATCH)), bodies: all.slice(0, -(WARM / BATCH)) };
    };
    type Headers = Record<string, string>;
    const send = async (name: string, url: string, bodies: string[], headers: Headers) => {
      const s = await sendAll(url, bodies, { headers, concurrency: CONCURRENCY });
      console.log(`${name}: ${N} forecasts in ${s.toFixed(2)} s = ${(N / s).toFixed(0)}/s`);
      return s;
    };
    let settledMs = 0;
    const best = { store: Infinity, app: Infinity, repost: Infinity, parse: Infinity };
    const keep = (k: keyof typeof best, s: number) => best[k] = Math.min(best[k], s);
    for (const day of days) {
      const { warm, bodies } = bodiesOf(day);
      for (const mode of ["store", "app", "parse"] as const) {
        if (mode === "app") {
          const app = await startApp(dir.path, { env: { BENCH_CONTROL: "1" } });
          try {
            const url = `${app.url}/v1/forecasts`;
            await send(`app warm-up (${day})`, url, warm, key(app.ext));
            const { text } = await call(`${app.url}/__bench/settle`, { method: "POST" });
            settledMs = Math.max(settledMs, JSON.parse(text).waited_ms);
            keep("app", await send(`app (${day})`, url, bodies, key(app.ext)));
            keep("repost", await send(`app re-post (${day})`, url, bodies, key(app.ext)));
          } finally {
            await app.stop();
          }
          continue;
        }
        const env = { BARE_MODE: mode, KV_PATH: `${dir.path}/bare.kv` };
        const server = await spawnServer("bench/servers/bare.ts", env, [], { pinned: true });
        try {
          await send(`bare ${mode} warm-up`, `${server.url}/`, warm, {});
          keep(mode, await send(`bare ${mode} (${day})`, `${server.url}/`, bodies, {}));
        } finally {
          await server.stop();
        }
      }
    }
    const check = await Deno.openKv(`${dir.path}/bridge.kv`);
    try {
      for (const day of days) {
        let stored = 0;
        for await (const _ of check.list({ prefix: ["forecasts", day] }, { batchSize: 1000 })) {
          stored++;
        }
        if (stored !== N + WARM) {
          throw new Error(`app stored ${stored} forecasts for ${day}, expected ${N + WARM}`);
        }
      }
    } finally {
      check.close();
    }
    await printProfiles();
    const base = ["bare parse+store", N / best.store] as [string, number];
    const perBatch = (s: number) => `${((s / (N / BATCH)) * 1000).toFixed(1)} ms/batch`;
    const post = `POST /v1/forecasts, ${N} forecasts in batches of ${BATCH}`;
    const rate = (metric: string, s: number, o: Parameters<typeof row>[4] = {}) =>
      row(PART, metric, N / s, "forecasts/s", { base, ...o });
    return [
      rate(`${post}, ${CONCURRENCY} clients, API key (best of ${ROUNDS})`, best.app, {
        goal: [">= 0.5x", best.store / best.app >= 0.5],
        note:
          `app ${best.app.toFixed(2)} s (${perBatch(best.app)}); bare parse+store ${
            best.store.toFixed(2)
          } s (${perBatch(best.store)}); bare parse ${best.parse.toFixed(2)} s; the MaLo-ID ` +
          `index after the warm-up took at most ${settledMs.toFixed(0)} ms more; ${pinned}`,
      }),
      rate("the same bodies posted again (every forecast unchanged)", best.repost),
      rate("diagnostic: bare server JSON-parsing the same bodies, no storage", best.parse),
    ];
  } finally {
    await dir.remove();
  }
}

if (import.meta.main) report(await main());
