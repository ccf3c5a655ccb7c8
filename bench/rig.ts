/**
 * The app rig (docs/benchmarks.md, "The rig"): the real app in its own process
 * (`bench/servers/app.ts`, temp-file KV, rate limit off, by default the files channel with ESS
 * documents to a local outbox, pinned to the server core), parametrised by what each part needs
 * (extra settings, `--cpu-prof`, pinning); registration through the batch API; one delivery day
 * end to end through the step routes, checked; the open position; the bare `kv.list` floor.
 * `million`, `mixed`, `day_10k`, `ingest_http`, `stream_fanout`, `http_auth` and `intraday` all
 * start the app here.
 * @module
 */
import { PARTIES } from "../tests/support/fahrplan.ts";
import { profFlags, type ServerProcess, sleep, spawnServer } from "./common.ts";
import { call, OverLimit, RssSampler, sendAll } from "./http.ts";
import { forecastBatches } from "./portfolio.ts";

/** Holiday region of the app (and of the exactness check). */
export const REGION = "DE";
/** Locations per `PUT /v1/market-locations` and forecasts per `POST /v1/forecasts`. */
export const BATCH = 500;

/** The app under test, with its keys (process, external) and an RSS sampler on its pid. */
export interface App {
  server: ServerProcess;
  url: string;
  kvPath: string;
  proc: string;
  ext: string;
  rss: RssSampler;
  /** `x-api-key` headers of the process and the external key. */
  procAuth: Record<string, string>;
  extAuth: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * The app's environment on `dir` (KV file, outbox and inbox there): files channel, ESS, outbox,
 * rate limit off, fresh keys.
 */
export function appEnv(dir: string, proc: string, ext: string): Record<string, string> {
  return {
    KV_PATH: `${dir}/bridge.kv`,
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
  };
}

/**
 * Starts the app on `dir`. `env` adds to (or overrides) {@link appEnv}; `pinned` (default true)
 * puts it on the server core; `BENCH_CPU_PROF` adds `--cpu-prof`.
 */
export async function startApp(
  dir: string,
  o: { env?: Record<string, string>; pinned?: boolean } = {},
): Promise<App> {
  const proc = `bench-proc-${crypto.randomUUID()}`;
  const ext = `bench-ext-${crypto.randomUUID()}`;
  const env = { ...appEnv(dir, proc, ext), ...o.env };
  await Deno.mkdir(`${dir}/inbox`, { recursive: true });
  const server = await spawnServer("bench/servers/app.ts", env, profFlags(), {
    pinned: o.pinned ?? true,
  });
  const rss = new RssSampler(server.pid);
  return {
    server,
    url: server.url,
    kvPath: env.KV_PATH,
    proc,
    ext,
    rss,
    procAuth: { "x-api-key": proc },
    extAuth: { "x-api-key": ext },
    async stop() {
      await server.stop();
      await rss.stop();
    },
  };
}

/** `PUT /v1/market-locations` of `bodies` with `concurrency` clients; seconds. */
export function register(app: App, bodies: string[], concurrency = 4, limitMs?: number) {
  const url = `${app.url}/v1/market-locations`;
  return sendAll(url, bodies, { headers: app.extAuth, concurrency, method: "PUT", limitMs });
}

/** A step route of `day` (`POST /v1/delivery-days/{day}/{name}`); seconds and its answer. */
export async function step(
  app: App,
  day: string,
  name: "forecast" | "aggregate" | "publish" | "submit",
  limitMs?: number,
  // deno-lint-ignore no-explicit-any
): Promise<{ s: number; body: any }> {
  const r = await call(`${app.url}/v1/delivery-days/${day}/${name}`, {
    method: "POST",
    headers: app.procAuth,
    limitMs,
    what: `${name} ${day}`,
  });
  return { s: r.ms / 1000, body: JSON.parse(r.text) };
}

/** The open position the app answers for `day` (MW per quarter-hour and area). */
export async function openPosition(app: App, day: string): Promise<Record<string, number[]>> {
  const url = `${app.url}/v1/delivery-days/${day}/open-position`;
  const r = await call(url, { headers: app.extAuth, limitMs: 30_000 });
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
 * (batches of 500), then forecast → aggregate (→ publish → submit unless `through` is
 * `"aggregate"`), each bounded by `limitMs()` and checked: `customers` kept, the rest generated,
 * all `n` aggregated, and `check(submitAnswer)` (default: four ESS files handed over). `around`
 * runs just before the forecast step and just after aggregation (probes, RSS window).
 */
export async function runDay(
  app: App,
  day: string,
  o: {
    n: number;
    customers: number;
    concurrency?: number;
    limitMs?: () => number;
    through?: "aggregate" | "submit";
    around?: { before(): Promise<void>; after(): Promise<void> };
    // deno-lint-ignore no-explicit-any
    check?: (submitted: any) => string | undefined;
  },
): Promise<{ times: DayTimes; customerBodies: string[]; publish?: unknown; submit?: unknown }> {
  const limitMs = o.limitMs ?? (() => 180_000);
  const customerBodies = forecastBatches(o.customers, day, BATCH);
  const ingest = await sendAll(`${app.url}/v1/forecasts`, customerBodies, {
    headers: app.extAuth,
    concurrency: o.concurrency,
    limitMs: limitMs(),
  });
  await o.around?.before();
  let f, a;
  try {
    f = await step(app, day, "forecast", limitMs());
    a = await step(app, day, "aggregate", limitMs());
  } finally {
    await o.around?.after(); // also after a failed step: the probes must stop
  }
  if (f.body.generated !== o.n - o.customers || f.body.customer !== o.customers) {
    throw new Error(
      `forecast ${day}: ${JSON.stringify(f.body)}; expected ${o.n - o.customers} generated`,
    );
  }
  const counts = a.body.counts;
  if (counts?.market_locations !== o.n || counts.missing_forecast !== 0) {
    throw new Error(`aggregate ${day}: ${JSON.stringify(counts)}; expected ${o.n} locations`);
  }
  const times: DayTimes = { ingest, forecast: f.s, aggregate: a.s, publish: NaN, submit: NaN };
  if (o.through === "aggregate") return { times, customerBodies };
  const p = await step(app, day, "publish", limitMs());
  const s = await step(app, day, "submit", limitMs());
  [times.publish, times.submit] = [p.s, s.s];
  const files = (b: { channel?: string; documents?: unknown[] }) =>
    b.channel === "files" && b.documents?.length === 4 ? undefined : "not 4 files";
  const wrong = (o.check ?? files)(s.body);
  if (wrong) throw new Error(`submit ${day}: ${wrong}: ${JSON.stringify(s.body).slice(0, 400)}`);
  return { times, customerBodies, publish: p.body, submit: s.body };
}

/**
 * The bare floor of reading every market location: a plain `kv.list` of `["market_locations"]`
 * in the KV file at `kvPath` (the app stopped), after a warm-up list of the first 100,000.
 * Seconds and the count; {@link OverLimit} past `limitMs`.
 */
export async function bareList(kvPath: string, limitMs: number): Promise<{ s: number; n: number }> {
  const kv = await Deno.openKv(kvPath);
  const t0 = performance.now();
  const list = () => kv.list({ prefix: ["market_locations"] }, { batchSize: 1000 });
  try {
    let warm = 0;
    for await (const _ of list()) if (++warm >= 100_000) break;
    await sleep(100);
    const t1 = performance.now();
    let n = 0;
    for await (const _ of list()) {
      if (++n % 10_000 === 0 && performance.now() - t0 > limitMs) {
        throw new OverLimit("bare kv.list", limitMs);
      }
    }
    return { s: (performance.now() - t1) / 1000, n };
  } finally {
    kv.close();
  }
}
