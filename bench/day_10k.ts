/**
 * Issue 6 — one delivery day for `BENCH_DAY_LOCATIONS` (10,000) market locations, from batched
 * ingestion to the stored receipt, through the real app over HTTP (its own process,
 * `bench/servers/app.ts`, temp-file KV) and the market-platform simulator
 * (`dev/market_platform_simulator.ts`, HTTPS on 127.0.0.1 with its self-signed certificate,
 * trusted through `MARKET_PLATFORM_CA_FILE`). Steps, each timed:
 *
 * 1. register — `PUT /v1/market-locations`, batches of `BENCH_DAY_REGISTER_BATCH` (500; mixed BDEW
 *    profiles, 4 control areas);
 * 2. ingest — `POST /v1/forecasts`, batches of 500 customer forecasts for the first
 *    `BENCH_DAY_CUSTOMER_SHARE` (0.5) of the locations;
 * 3. forecast — `POST /v1/delivery-days/{day}/forecast` (profiles for the rest);
 * 4. aggregate, 5. publish (local outbox), 6. submit (simulator) — the step routes;
 *
 * then checks that the simulator stored exactly one submission for the day and that the day's
 * `submitted` step in `GET /v1/console/delivery-days` carries that receipt.
 *
 * Goal: under 30 s in total (absolute). Baseline, same run: the sum of bare costs of each step:
 * register and ingest — the same bodies to a bare server that parses them and stores them in one
 * atomic each (`bench/servers/bare.ts`, `BARE_MODE=store`); forecast — a bare `kv.list` of the
 * locations plus a bare atomic write (400 per atomic) of the app's generated forecast records as
 * stored (profile references, lib/pipeline/forecasts.ts); aggregate — a bare `kv.list` of the
 * day's forecasts; publish — writing the published CSV again to a temp
 * name and renaming it; submit — one HTTPS POST of the same payload to the simulator with a fresh
 * TLS client. The bare forecast/aggregate numbers are taken on the app's KV file after the app
 * stopped (the KV work alone, no profile computation or summing).
 *
 * Run alone: `deno run -A bench/day_10k.ts`
 * @module
 */
import { startSimulator } from "../dev/market_platform_simulator.ts";
import { nextOpenDay, quarterHourCount } from "../lib/domain/delivery_day.ts";
import { report, type Row, spawnServer, tempDir } from "./common.ts";
import { forecastBatches, locationBatches, postAll } from "./portfolio.ts";

const PART = "6 day end-to-end";
const N = Number(Deno.env.get("BENCH_DAY_LOCATIONS") ?? 10_000);
const SHARE = Number(Deno.env.get("BENCH_DAY_CUSTOMER_SHARE") ?? 0.5);
const CONCURRENCY = Number(Deno.env.get("BENCH_DAY_CONCURRENCY") ?? 4);
/** Locations per `PUT /v1/market-locations` (the route accepts up to 500). */
const REGISTER_BATCH = Number(Deno.env.get("BENCH_DAY_REGISTER_BATCH") ?? 500);
const STEP_LIMIT_MS = 120_000;

/** Runs `fn`, failing it after the step limit; returns seconds and the result. */
async function timed<T>(name: string, fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const out = await Promise.race([
      fn(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${name}: over ${STEP_LIMIT_MS} ms`)),
          STEP_LIMIT_MS,
        );
      }),
    ]);
    return [(performance.now() - t0) / 1000, out];
  } finally {
    clearTimeout(timer);
  }
}

export async function main(): Promise<Row[]> {
  const dir = await tempDir("bench-day-");
  const sim = await startSimulator();
  const day = nextOpenDay(Date.now());
  const qh = quarterHourCount(day);
  const customers = Math.round(N * SHARE);
  const proc = `bench-proc-${crypto.randomUUID()}`;
  const ext = `bench-ext-${crypto.randomUUID()}`;
  await Deno.writeTextFile(`${dir.path}/ca.pem`, sim.caCert);
  const locBodies = locationBatches(N, REGISTER_BATCH);
  const fcBodies = forecastBatches(customers, day, qh);
  const app = await spawnServer("bench/servers/app.ts", {
    KV_PATH: `${dir.path}/bridge.kv`,
    PROCESS_API_KEYS: `operator:${proc}`,
    EXTERNAL_API_KEYS: `customer:${ext}`,
    RATE_LIMIT_PER_MINUTE: "0",
    MARKET_PLATFORM_URL: sim.url,
    MARKET_PLATFORM_API_KEY: sim.apiKey,
    MARKET_PLATFORM_CA_FILE: `${dir.path}/ca.pem`,
    BALANCING_GROUP: "11XDE-EXAMPLE--H",
    SENDER_EIC: "11XDE-EXAMPLE--H",
    OUTBOX_DIR: `${dir.path}/outbox`,
    PUBLISH_TARGET: "outbox",
  });
  let appStopped = false;
  const json = { "content-type": "application/json" };
  const step = async (name: string) => {
    const res = await fetch(`${app.url}/v1/delivery-days/${day}/${name}`, {
      method: "POST",
      headers: { "x-api-key": proc },
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${name} → ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text);
  };
  try {
    const app_: Record<string, number> = {};
    let r;
    [app_.register] = await timed(
      "register",
      () =>
        postAll(
          `${app.url}/v1/market-locations`,
          locBodies,
          { "x-api-key": ext },
          CONCURRENCY,
          "PUT",
        ),
    );
    [app_.ingest] = await timed(
      "ingest",
      () => postAll(`${app.url}/v1/forecasts`, fcBodies, { "x-api-key": ext }, CONCURRENCY),
    );
    [app_.forecast, r] = await timed("forecast", () => step("forecast"));
    if (r.generated !== N - customers) {
      throw new Error(`generated ${r.generated}, expected ${N - customers}: ${JSON.stringify(r)}`);
    }
    [app_.aggregate, r] = await timed("aggregate", () => step("aggregate"));
    if (r.counts?.market_locations !== N) throw new Error(`aggregate: ${JSON.stringify(r)}`);
    [app_.publish, r] = await timed("publish", () => step("publish"));
    const csvPath = r.location as string;
    [app_.submit, r] = await timed("submit", () => step("submit"));
    if (!r.sent || r.receipt?.status !== 201) throw new Error(`submit: ${JSON.stringify(r)}`);
    const receiptId = r.receipt.body.submission_id as string;
    const total = Object.values(app_).reduce((a, b) => a + b, 0);

    // The receipt is stored: simulator and the day's state agree.
    const subs = sim.submissions().filter((s) => s.body.delivery_day === day);
    if (subs.length !== 1 || subs[0].submission_id !== receiptId) {
      throw new Error(`simulator stored ${subs.length} submissions for ${day}`);
    }
    const overview = await (await fetch(`${app.url}/v1/console/delivery-days`, {
      headers: { "x-api-key": proc },
    })).json();
    const entry = overview.delivery_days.find((d: { delivery_day: string }) =>
      d.delivery_day === day
    );
    const stored = entry?.steps?.submitted?.detail?.receipt;
    if (JSON.stringify(stored ?? {}).indexOf(receiptId) < 0) {
      throw new Error(`the day's submitted step does not carry receipt ${receiptId}`);
    }
    const csv = await Deno.readTextFile(csvPath);
    const payload = subs[0].body;
    await app.stop();
    appStopped = true;

    // ---- bare costs of each step, same run --------------------------------------------------
    const bare: Record<string, number> = {};
    const store = await spawnServer("bench/servers/bare.ts", {
      BARE_MODE: "store",
      KV_PATH: `${dir.path}/bare.kv`,
    });
    try {
      [bare.register] = await timed(
        "bare register",
        () => postAll(`${store.url}/`, locBodies, json, CONCURRENCY, "PUT"),
      );
      [bare.ingest] = await timed(
        "bare ingest",
        () => postAll(`${store.url}/`, fcBodies, json, CONCURRENCY),
      );
    } finally {
      await store.stop();
    }
    const kv = await Deno.openKv(`${dir.path}/bridge.kv`);
    try {
      [bare.forecast] = await timed("bare forecast", async () => {
        let n = 0;
        for await (const _ of kv.list({ prefix: ["market_locations"] }, { batchSize: 1000 })) n++;
        const gen: [Deno.KvKey, unknown][] = [];
        for await (
          const e of kv.list<{ source: string }>({ prefix: ["forecasts", day] }, {
            batchSize: 1000,
          })
        ) if (e.value.source === "generated") gen.push([["bare_forecasts", ...e.key], e.value]);
        for (let i = 0; i < gen.length; i += 400) {
          const op = kv.atomic();
          for (const [k, v] of gen.slice(i, i + 400)) op.set(k, v);
          if (!(await op.commit()).ok) throw new Error("bare write failed");
        }
        return n;
      });
      [bare.aggregate] = await timed("bare aggregate", async () => {
        let n = 0;
        for await (const _ of kv.list({ prefix: ["forecasts", day] }, { batchSize: 1000 })) n++;
        return n;
      });
    } finally {
      kv.close();
    }
    [bare.publish] = await timed("bare publish", async () => {
      await Deno.writeTextFile(`${dir.path}/bare.csv.part`, csv);
      await Deno.rename(`${dir.path}/bare.csv.part`, `${dir.path}/bare.csv`);
    });
    [bare.submit] = await timed("bare submit", async () => {
      const client = Deno.createHttpClient({ caCerts: [sim.caCert] });
      try {
        const res = await fetch(`${sim.url}/schedules`, {
          method: "POST",
          headers: {
            authorization: sim.apiKey,
            "idempotency-key": `bench-${crypto.randomUUID()}`,
            ...json,
          },
          body: JSON.stringify(payload),
          client,
        });
        await res.text();
        if (res.status !== 201) throw new Error(`bare submit → ${res.status}`);
      } finally {
        client.close();
      }
    });
    const bareTotal = Object.values(bare).reduce((a, b) => a + b, 0);

    console.log(
      `${day}: ${N} locations (${customers} with customer forecast), total ${
        total.toFixed(2)
      } s; ` + Object.keys(app_).map((k) =>
        `${k} ${app_[k].toFixed(2)} s (bare ${bare[k].toFixed(3)})`
      ).join(", ") + `; receipt ${receiptId}`,
    );
    const what: Record<string, string> = {
      register: `PUT /v1/market-locations, ${locBodies.length} batches`,
      ingest: `POST /v1/forecasts, ${customers} forecasts in ${fcBodies.length} batches`,
      forecast: `POST …/forecast (${N - customers} profile forecasts)`,
      aggregate: "POST …/aggregate",
      publish: "POST …/publish (local outbox)",
      submit: "POST …/submit (simulator over HTTPS)",
    };
    const bareWhat: Record<string, string> = {
      register: "bare parse+store server",
      ingest: "bare parse+store server",
      forecast: "bare kv.list + atomic writes",
      aggregate: "bare kv.list",
      publish: "bare write + rename",
      submit: "bare HTTPS POST",
    };
    return [
      {
        part: PART,
        metric: `${N} locations, registration → stored receipt, total`,
        value: total,
        unit: "s",
        baseline: "sum of bare step costs",
        baselineValue: bareTotal,
        ratio: total / bareTotal,
        goal: "< 30 s",
        met: total < 30,
        note: `receipt ${receiptId} stored in the simulator and in the day state; ${
          csv.split("\n").length - 2
        } CSV rows`,
      },
      ...Object.keys(app_).map((k): Row => ({
        part: PART,
        metric: `step ${k}: ${what[k]}`,
        value: app_[k],
        unit: "s",
        baseline: bareWhat[k],
        baselineValue: bare[k],
        ratio: app_[k] / bare[k],
      })),
    ];
  } finally {
    if (!appStopped) await app.stop();
    await sim.close();
    await dir.remove();
  }
}

if (import.meta.main) report(await main());
