/**
 * The `day_10k` part (docs/benchmarks.md, "The parts"): one day of `BENCH_DAY_LOCATIONS`
 * (10,000) locations through the rig and the HTTPS market-platform simulator, registration to the
 * stored receipt, against the sum of each step's bare cost. Goal < 30 s.
 * @module
 */
import { startSimulator } from "../dev/market_platform_simulator.ts";
import { nextOpenDay } from "../lib/domain/delivery_day.ts";
import { num, report, type Row, row, spawnServer, tempDir } from "./common.ts";
import { call, sendAll } from "./http.ts";
import { forecastBatches, locationBatches } from "./portfolio.ts";
import { key, register, runDay, startApp } from "./rig.ts";

const PART = "6 day end-to-end";
const N = num("BENCH_DAY_LOCATIONS", 10_000);
const CUSTOMERS = Math.round(N * num("BENCH_DAY_CUSTOMER_SHARE", 0.5));
const CONCURRENCY = num("BENCH_DAY_CONCURRENCY", 4);
const STEPS = ["register", "ingest", "forecast", "aggregate", "publish", "submit"] as const;
type Times = Record<typeof STEPS[number], number>;

/** Seconds of `fn`. */
const timed = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
};

/** What {@link bare} needs of the market-platform simulator. */
type Sim = { url: string; apiKey: string; caCert: string };
/** The bare cost of each step, on the app's KV file after the app stopped. */
async function bare(dir: string, day: string, csv: string, payload: unknown, sim: Sim) {
  const b = {} as Times;
  const env = { BARE_MODE: "store", KV_PATH: `${dir}/bare.kv` };
  const store = await spawnServer("bench/servers/bare.ts", env);
  try {
    const o = { concurrency: CONCURRENCY };
    b.register = await sendAll(`${store.url}/`, locationBatches(N), { ...o, method: "PUT" });
    b.ingest = await sendAll(`${store.url}/`, forecastBatches(CUSTOMERS, day), o);
  } finally {
    await store.stop();
  }
  const kv = await Deno.openKv(`${dir}/bridge.kv`);
  const list = (prefix: Deno.KvKey) => kv.list<{ source: string }>({ prefix }, { batchSize: 1000 });
  try {
    b.forecast = await timed(async () => {
      for await (const _ of list(["market_locations"]));
      const gen: [Deno.KvKey, unknown][] = [];
      for await (const e of list(["forecasts", day])) {
        if (e.value.source === "generated") gen.push([["bare", ...e.key], e.value]);
      }
      for (let i = 0; i < gen.length; i += 400) {
        const op = kv.atomic();
        for (const [k, v] of gen.slice(i, i + 400)) op.set(k, v);
        if (!(await op.commit()).ok) throw new Error("bare write failed");
      }
    });
    b.aggregate = await timed(async () => {
      for await (const _ of list(["forecasts", day]));
    });
  } finally {
    kv.close();
  }
  b.publish = await timed(async () => {
    await Deno.writeTextFile(`${dir}/bare.csv.part`, csv);
    await Deno.rename(`${dir}/bare.csv.part`, `${dir}/bare.csv`);
  });
  b.submit = await timed(async () => {
    const client = Deno.createHttpClient({ caCerts: [sim.caCert] });
    try {
      const idempotency = { "idempotency-key": `bench-${crypto.randomUUID()}` };
      const headers = {
        authorization: sim.apiKey,
        ...idempotency,
        "content-type": "application/json",
      };
      const body = JSON.stringify(payload);
      await call(`${sim.url}/schedules`, { method: "POST", headers, body, client });
    } finally {
      client.close();
    }
  });
  return b;
}

/** Runs the part; its rows. */
export async function main(): Promise<Row[]> {
  const dir = await tempDir("bench-day-");
  const sim = await startSimulator();
  const day = nextOpenDay(Date.now());
  await Deno.writeTextFile(`${dir.path}/ca.pem`, sim.caCert);
  const app = await startApp(dir.path, {
    pinned: false,
    env: {
      SCHEDULE_CHANNEL: "platform",
      SCHEDULE_FORMAT: "json",
      MARKET_PLATFORM_URL: sim.url,
      MARKET_PLATFORM_API_KEY: sim.apiKey,
      MARKET_PLATFORM_CA_FILE: `${dir.path}/ca.pem`,
    },
  });
  let stopped = false;
  try {
    const t = { register: await register(app, locationBatches(N), CONCURRENCY) } as Times;
    const d = await runDay(app, day, {
      n: N,
      customers: CUSTOMERS,
      concurrency: CONCURRENCY,
      check: (s) => s.sent && s.receipt?.status === 201,
    });
    Object.assign(t, d.times);
    // deno-lint-ignore no-explicit-any
    const receiptId = (d.submit as any).receipt.body.submission_id as string;
    const subs = sim.submissions().filter((s) => s.body.delivery_day === day);
    if (subs.length !== 1 || subs[0].submission_id !== receiptId) {
      throw new Error(`simulator stored ${subs.length} submissions for ${day}`);
    }
    const { text } = await call(`${app.url}/v1/console/delivery-days`, { headers: key(app.proc) });
    const entry = JSON.parse(text).delivery_days.find((x: { delivery_day: string }) =>
      x.delivery_day === day
    );
    if (!JSON.stringify(entry?.steps?.submitted?.detail?.receipt ?? {}).includes(receiptId)) {
      throw new Error(`the day's submitted step does not carry receipt ${receiptId}`);
    }
    const csv = await Deno.readTextFile((d.publish as { location: string }).location);
    await app.stop();
    stopped = true;
    const b = await bare(dir.path, day, csv, subs[0].body, sim);
    const total = STEPS.reduce((a, k) => a + t[k], 0),
      bareTotal = STEPS.reduce((a, k) => a + b[k], 0);
    console.log(
      `${day}: ${N} locations, total ${total.toFixed(2)} s; ${
        STEPS.map((k) => `${k} ${t[k].toFixed(2)} s (bare ${b[k].toFixed(3)})`).join(", ")
      }`,
    );
    const what: Record<string, [string, string]> = {
      register: ["PUT /v1/market-locations, batches of 500", "bare parse+store server"],
      ingest: [`POST /v1/forecasts, ${CUSTOMERS} forecasts`, "bare parse+store server"],
      forecast: [`POST …/forecast (${N - CUSTOMERS} profiles)`, "bare kv.list + atomic writes"],
      aggregate: ["POST …/aggregate", "bare kv.list"],
      publish: ["POST …/publish (local outbox)", "bare write + rename"],
      submit: ["POST …/submit (simulator over HTTPS)", "bare HTTPS POST"],
    };
    return [
      row(PART, `${N} locations, registration → stored receipt, total`, total, "s", {
        base: ["sum of bare step costs", bareTotal],
        goal: ["< 30 s", total < 30],
        note: `receipt ${receiptId} stored in the simulator and in the day state; ${
          csv.split("\n").length - 2
        } CSV rows`,
      }),
      ...STEPS.map((k) =>
        row(PART, `step ${k}: ${what[k][0]}`, t[k], "s", { base: [what[k][1], b[k]] })
      ),
    ];
  } finally {
    if (!stopped) await app.stop();
    await sim.close();
    await dir.remove();
  }
}

if (import.meta.main) report(await main());
