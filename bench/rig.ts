/**
 * The app rig (docs/benchmarks.md, "The rig"): the real app in its own process, registration,
 * one delivery day end to end through the step routes, the open position, the bare `kv.list` floor.
 * @module
 */
import { PARTIES } from "../tests/support/fahrplan.ts";
import { profFlags, type ServerProcess, sleep, spawnServer } from "./common.ts";
import { call, OverLimit, RssSampler, sendAll } from "./http.ts";
import { forecastBatches } from "./portfolio.ts";

/** A JSON answer as parsed (its shape is checked where it is used). */
// deno-lint-ignore no-explicit-any
type Json = any;
/** Holiday region of the app (and of the exactness check). */
export const REGION = "DE";

/** The app's settings on `dir` (KV file, outbox, inbox there): files channel, ESS, outbox. */
export const appEnv = (dir: string, proc: string, ext: string): Record<string, string> => ({
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
});

/** Locations per `PUT /v1/market-locations` and forecasts per `POST /v1/forecasts`. */
export const BATCH = 500;

/** The app under test: its process, URL, KV file, keys (process, external) and RSS sampler. */
export interface App {
  server: ServerProcess;
  url: string;
  kvPath: string;
  proc: string;
  ext: string;
  rss: RssSampler;
  stop(): Promise<void>;
}

/** The `x-api-key` header of `apiKey`. */
export const key = (apiKey: string) => ({ "x-api-key": apiKey });

/**
 * Starts the app on `dir` with fresh keys; `env` adds to (or overrides) {@link appEnv}; `pinned`
 * (default true) on the server core; `BENCH_CPU_PROF` adds `--cpu-prof`.
 */
export async function startApp(
  dir: string,
  o: { env?: Record<string, string>; pinned?: boolean } = {},
): Promise<App> {
  const [proc, ext] = [`bench-proc-${crypto.randomUUID()}`, `bench-ext-${crypto.randomUUID()}`];
  const env = { ...appEnv(dir, proc, ext), ...o.env };
  await Deno.mkdir(`${dir}/inbox`, { recursive: true });
  const pinned = o.pinned ?? true;
  const server = await spawnServer("bench/servers/app.ts", env, profFlags(), { pinned });
  const rss = new RssSampler(server.pid);
  const stop = async () => (await server.stop(), await rss.stop());
  return { server, url: server.url, kvPath: env.KV_PATH, proc, ext, rss, stop };
}

/** `PUT /v1/market-locations` of `bodies` with `concurrency` clients; seconds. */
export function register(app: App, bodies: string[], concurrency = 4, limitMs?: number) {
  const url = `${app.url}/v1/market-locations`;
  return sendAll(url, bodies, { headers: key(app.ext), concurrency, method: "PUT", limitMs });
}

/** A step route of `day` (`POST /v1/delivery-days/{day}/{name}`); seconds and its answer. */
export async function step(
  app: App,
  day: string,
  name: string,
  limitMs?: number,
): Promise<{ s: number; body: Json }> {
  const url = `${app.url}/v1/delivery-days/${day}/${name}`;
  const what = `${name} ${day}`;
  const r = await call(url, { method: "POST", headers: key(app.proc), limitMs, what });
  return { s: r.ms / 1000, body: JSON.parse(r.text) };
}

/** The open position the app answers for `day` (MW per quarter-hour and area). */
export async function openPosition(app: App, day: string): Promise<Record<string, number[]>> {
  const url = `${app.url}/v1/delivery-days/${day}/open-position`;
  return JSON.parse((await call(url, { headers: key(app.ext) })).text).areas;
}

/** Seconds of each step of one day, in order. */
export type DayTimes = Record<"ingest" | "forecast" | "aggregate" | "publish" | "submit", number>;

/**
 * One delivery day end to end: ingest the customer forecasts of locations `0..customers-1`
 * (batches of 500), then forecast → aggregate (→ publish → submit unless `through` is
 * `"aggregate"`), each bounded by `limitMs()` and checked: `customers` kept, the rest generated,
 * all `n` aggregated, and `check(submitAnswer)` (default: four files handed over). `around` runs
 * just before the forecast step and just after aggregation (probes, RSS window).
 */
export async function runDay(app: App, day: string, o: {
  n: number;
  customers: number;
  concurrency?: number;
  limitMs?: () => number;
  through?: "aggregate";
  around?: { before(): Promise<void>; after(): Promise<void> };
  check?: (submitted: Json) => boolean;
}) {
  const limitMs = o.limitMs ?? (() => 180_000);
  const customerBodies = forecastBatches(o.customers, day);
  const { concurrency } = o;
  const ingest = await sendAll(`${app.url}/v1/forecasts`, customerBodies, {
    headers: key(app.ext),
    concurrency,
    limitMs: limitMs(),
  });
  await o.around?.before();
  const after = async (e: unknown) => (await o.around?.after(), Promise.reject(e));
  const f = await step(app, day, "forecast", limitMs()).catch(after);
  const a = await step(app, day, "aggregate", limitMs()).finally(() => o.around?.after());
  if (f.body.generated !== o.n - o.customers || f.body.customer !== o.customers) {
    throw new Error(
      `forecast ${day}: ${JSON.stringify(f.body)}; expected ${o.n - o.customers} generated`,
    );
  }
  if (a.body.counts?.market_locations !== o.n || a.body.counts.missing_forecast !== 0) {
    throw new Error(
      `aggregate ${day}: ${JSON.stringify(a.body.counts)}; expected ${o.n} locations`,
    );
  }
  const times: DayTimes = { ingest, forecast: f.s, aggregate: a.s, publish: NaN, submit: NaN };
  if (o.through) return { times, customerBodies };
  const p = await step(app, day, "publish", limitMs());
  const s = await step(app, day, "submit", limitMs());
  [times.publish, times.submit] = [p.s, s.s];
  const files = (b: { channel?: string; documents?: unknown[] }) =>
    b.channel === "files" && b.documents?.length === 4;
  if (!(o.check ?? files)(s.body)) {
    throw new Error(`submit ${day}: ${JSON.stringify(s.body).slice(0, 400)}`);
  }
  return { times, customerBodies, publish: p.body, submit: s.body };
}

/**
 * The bare floor of reading every market location: a plain `kv.list` of `["market_locations"]`
 * in the KV file at `kvPath` (the app stopped), after a warm-up list of the first 100,000.
 * Seconds and the count; {@link OverLimit} past `limitMs`.
 */
export async function bareList(kvPath: string, limitMs: number): Promise<{ s: number; n: number }> {
  const kv = await Deno.openKv(kvPath);
  const list = () => kv.list({ prefix: ["market_locations"] }, { batchSize: 1000 });
  const t0 = performance.now();
  try {
    let n = 0;
    for await (const _ of list()) if (++n >= 100_000) break;
    await sleep(100);
    const t1 = performance.now();
    n = 0;
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
