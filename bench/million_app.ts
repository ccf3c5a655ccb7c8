/**
 * The app side of `bench/million.ts`: the real app in its own process (`bench/servers/app.ts`,
 * pinned to the server core, temp-file KV, rate limit off, the files channel with ESS documents
 * to the local outbox), registration through the batch API, one delivery day end to end through
 * the step routes, and the bare `kv.list` baseline.
 * @module
 */
import { PARTIES } from "../tests/support/fahrplan.ts";
import { quarterHourCount } from "../lib/domain/delivery_day.ts";
import { type ServerProcess, sleep, spawnServer } from "./common.ts";
import { forecastBatches } from "./portfolio.ts";
import { call, OverLimit, RssSampler, sendAll } from "./million_http.ts";

/** Holiday region of the app (and of the exactness check). */
export const REGION = "DE";
/** Locations per `PUT /v1/market-locations` and forecasts per `POST /v1/forecasts`. */
export const BATCH = 500;

/** The app under test, with its keys and an RSS sampler on its pid. */
export interface App {
  server: ServerProcess;
  url: string;
  kvPath: string;
  proc: string;
  ext: string;
  rss: RssSampler;
  stop(): Promise<void>;
}

/** Starts the app on `dir` (its KV file, outbox and inbox live there). */
export async function startApp(dir: string): Promise<App> {
  const proc = `bench-proc-${crypto.randomUUID()}`;
  const ext = `bench-ext-${crypto.randomUUID()}`;
  const kvPath = `${dir}/bridge.kv`;
  await Deno.mkdir(`${dir}/inbox`, { recursive: true });
  const server = await spawnServer(
    "bench/servers/app.ts",
    {
      KV_PATH: kvPath,
      PROCESS_API_KEYS: `ops:${proc}`,
      EXTERNAL_API_KEYS: `customer:${ext}`,
      RATE_LIMIT_PER_MINUTE: "0",
      HOLIDAY_REGION: REGION,
      PUBLISH_TARGET: "outbox",
      OUTBOX_DIR: `${dir}/outbox`,
      SCHEDULE_INBOX_DIR: `${dir}/inbox`,
      SCHEDULE_CHANNEL: "files",
      SCHEDULE_FORMAT: "ess",
      SENDER_EIC: PARTIES.sender,
      BALANCING_GROUP: PARTIES.balancingGroup,
      COUNTERPARTY_EIC: PARTIES.counterparty,
    },
    [],
    { pinned: true },
  );
  const rss = new RssSampler(server.pid);
  return {
    server,
    url: server.url,
    kvPath,
    proc,
    ext,
    rss,
    async stop() {
      await server.stop();
      await rss.stop();
    },
  };
}

/** `PUT /v1/market-locations` of `bodies` with `concurrency` clients; seconds. */
export function register(app: App, bodies: string[], concurrency: number, limitMs: number) {
  return sendAll(`${app.url}/v1/market-locations`, bodies, {
    headers: { "x-api-key": app.ext },
    concurrency,
    method: "PUT",
    limitMs,
  });
}

/** Runs one step route of `day`; seconds and its answer. */
export async function step(
  app: App,
  day: string,
  name: "forecast" | "aggregate" | "publish" | "submit",
  limitMs: number,
): Promise<{ s: number; body: Record<string, unknown> }> {
  const r = await call(`${app.url}/v1/delivery-days/${day}/${name}`, {
    method: "POST",
    headers: { "x-api-key": app.proc },
    limitMs,
    what: `${name} ${day}`,
  });
  return { s: r.ms / 1000, body: JSON.parse(r.text) };
}

/** The open position the app answers for `day` (MW per quarter-hour and area). */
export async function openPosition(app: App, day: string): Promise<Record<string, number[]>> {
  const r = await call(`${app.url}/v1/delivery-days/${day}/open-position`, {
    headers: { "x-api-key": app.ext },
    limitMs: 30_000,
  });
  return (JSON.parse(r.text) as { areas: Record<string, number[]> }).areas;
}

/** Seconds of each step of one day, in order. */
export interface DayTimes {
  ingest: number;
  forecast: number;
  aggregate: number;
  publish: number;
  submit: number;
}

/**
 * One delivery day end to end: ingest the customer forecasts of locations `0..customers-1`
 * (`POST /v1/forecasts`, batches of 500), then forecast → aggregate → publish → submit through
 * the step routes, each bounded by `limitMs()` (asked before each step) and checked:
 * `customers` customer forecasts kept, the rest generated, all `n` locations aggregated, one
 * ESS document per control area handed over. `around` runs just before the forecast step and
 * just after the aggregate step (probes, RSS window).
 * @returns step seconds and the customer-forecast bodies sent
 */
export async function runDay(
  app: App,
  day: string,
  o: {
    n: number;
    customers: number;
    concurrency: number;
    limitMs: () => number;
    through?: "aggregate" | "submit";
    around?: { before(): Promise<void>; after(): Promise<void> };
  },
): Promise<{ times: DayTimes; customerBodies: string[] }> {
  const customerBodies = forecastBatches(o.customers, day, quarterHourCount(day), BATCH);
  const ingest = await sendAll(`${app.url}/v1/forecasts`, customerBodies, {
    headers: { "x-api-key": app.ext },
    concurrency: o.concurrency,
    method: "POST",
    limitMs: o.limitMs(),
  });
  await o.around?.before();
  let f, a;
  try {
    f = await step(app, day, "forecast", o.limitMs());
    a = await step(app, day, "aggregate", o.limitMs());
  } finally {
    await o.around?.after(); // also after a failed step: the probes must stop
  }
  const fb = f.body as { generated: number; customer: number };
  if (fb.generated !== o.n - o.customers || fb.customer !== o.customers) {
    throw new Error(
      `forecast ${day}: ${JSON.stringify(fb)}; expected ${o.n - o.customers} ` +
        `generated and ${o.customers} customer forecasts`,
    );
  }
  const counts = (a.body as { counts: Record<string, number> }).counts;
  if (counts.market_locations !== o.n || counts.missing_forecast !== 0) {
    throw new Error(`aggregate ${day}: ${JSON.stringify(counts)}; expected ${o.n} locations`);
  }
  const times: DayTimes = { ingest, forecast: f.s, aggregate: a.s, publish: NaN, submit: NaN };
  if (o.through === "aggregate") return { times, customerBodies };
  times.publish = (await step(app, day, "publish", o.limitMs())).s;
  const s = await step(app, day, "submit", o.limitMs());
  times.submit = s.s;
  const docs = (s.body as { channel?: string; documents?: unknown[] }).documents ?? [];
  if ((s.body as { channel?: string }).channel !== "files" || docs.length !== 4) {
    throw new Error(`submit ${day}: ${JSON.stringify(s.body).slice(0, 400)}`);
  }
  return { times, customerBodies };
}

/**
 * The bare floor of reading every market location the old way: a plain `kv.list` of the
 * `["market_locations"]` prefix of the KV file at `kvPath` (opened here, the app stopped), after
 * a warm-up list of the first 100,000. Returns seconds and the count; {@link OverLimit} past
 * `limitMs`.
 */
export async function bareList(kvPath: string, limitMs: number): Promise<{ s: number; n: number }> {
  const kv = await Deno.openKv(kvPath);
  const t0 = performance.now();
  try {
    let warm = 0;
    for await (const _ of kv.list({ prefix: ["market_locations"] }, { batchSize: 1000 })) {
      if (++warm >= 100_000) break;
    }
    await sleep(100);
    const t1 = performance.now();
    let n = 0;
    for await (const _ of kv.list({ prefix: ["market_locations"] }, { batchSize: 1000 })) {
      if (++n % 10_000 === 0 && performance.now() - t0 > limitMs) {
        throw new OverLimit("bare kv.list", limitMs);
      }
    }
    return { s: (performance.now() - t1) / 1000, n };
  } finally {
    kv.close();
  }
}
