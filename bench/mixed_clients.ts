/**
 * The load side of the `mixed` part (docs/mixed-load.md, "The part"), its own process: closed-loop
 * clients by the weights of {@link KINDS} and a pass every `BENCH_MIXED_PASS_EVERY_S` (5) s; input
 * `MIXED_URL`, `MIXED_PROC_KEY`, `MIXED_EXT_KEY`, `MIXED_N`, `MIXED_DAYS`; output one
 * `MIXED_RESULT <json>` line (stats per kind, non-2xx, the 20 slowest requests).
 * @module
 */
import { num, sleep, stats, wallMs } from "./common.ts";
import { AREAS, benchLocation, forecastBatches } from "./portfolio.ts";

const env = (k: string) => Deno.env.get(k) ?? "";
const URL_ = env("MIXED_URL");
if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(URL_)) throw new Error(`not a loopback URL: ${URL_}`);
const [N, DAYS, ONLY] = [
  num("MIXED_N", 10_000),
  env("MIXED_DAYS").split(","),
  env("BENCH_MIXED_ONLY"),
];
const [CLIENTS, THINK_MS] = [num("BENCH_MIXED_CLIENTS", 32), num("BENCH_MIXED_THINK_MS", 100)];
const PASS_EVERY_MS = num("BENCH_MIXED_PASS_EVERY_S", 5) * 1000;
const FROM = wallMs() + num("BENCH_MIXED_WARMUP_S", 5) * 1000;
const MEASURE_S = num("BENCH_MIXED_SECONDS", 180);
const END = FROM + MEASURE_S * 1000;
/** Forecasts per `POST /v1/forecasts` of the mix. */
const BATCH = num("BENCH_MIXED_BATCH", 100);

const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
const proc = { "x-api-key": env("MIXED_PROC_KEY") };
const ext = { "x-api-key": env("MIXED_EXT_KEY"), "content-type": "application/json" };
/** One request of a kind: method, path, headers, body. */
type Req = { method: string; path: string; headers: Record<string, string>; body?: string };
const get = (path: string): Req => ({ method: "GET", path, headers: proc });

/** A new annual energy for a random registered location. */
function locationPut(): Req {
  const { malo_id, updated_at: _, ...input } = benchLocation(Math.floor(Math.random() * N), "");
  input.annual_kwh = Math.round((input.annual_kwh ?? 1000) * (0.9 + Math.random() / 5));
  const path = `/v1/market-locations/${malo_id}`;
  return { method: "PUT", path, headers: ext, body: JSON.stringify(input) };
}

/** `BATCH` customer forecasts of neighbouring locations (among the first half) for an open day. */
function forecastBatch(): Req {
  const start = Math.floor(Math.random() * Math.max(1, N / 2 - BATCH));
  const ids = Array.from({ length: BATCH }, (_, j) => start + j);
  const [body] = forecastBatches(ids, pick(DAYS), BATCH, Math.floor(Math.random() * 1000));
  return { method: "POST", path: "/v1/forecasts", headers: ext, body };
}

/** The mix: kind → weight and request maker. */
const KINDS: Record<string, [number, () => Req]> = {
  status: [30, () => get("/v1/console/status")],
  overview: [15, () => get("/v1/console/delivery-days")],
  events: [20, () => get("/v1/console/events?limit=100")],
  location_put: [20, locationPut],
  schedule: [
    10,
    () =>
      get(
        `/v1/delivery-days/${pick(DAYS)}/schedules/${pick(AREAS)}?format=${pick(["ess", "cim"])}`,
      ),
  ],
  forecast_batch: [5, forecastBatch],
};
const TOTAL = Object.values(KINDS).reduce((a, [w]) => a + w, 0);
const nextKind = () => {
  let r = Math.random() * TOTAL;
  return ONLY || Object.keys(KINDS).find((k) => (r -= KINDS[k][0]) < 0) || "status";
};

const samples: Record<string, number[]> = {};
const slowest: { at: number; kind: string; path: string; status: number; ms: number }[] = [];
const refused: Record<string, number> = {};

/** Sends one request; records its latency (ms) under `kind` when it started in the window. */
async function send(kind: string, r: Req): Promise<void> {
  const at = wallMs();
  const res = await fetch(`${URL_}${r.path}`, {
    method: r.method,
    headers: r.headers,
    body: r.body,
  });
  await res.arrayBuffer();
  const ms = wallMs() - at;
  if (at < FROM || at >= END) return;
  (samples[kind] ??= []).push(ms);
  if (kind !== "orchestrate" && (ms > 300 || slowest.length < 20)) {
    slowest.push({ at, kind, path: r.path, status: res.status, ms });
    slowest.sort((a, b) => b.ms - a.ms).splice(20);
  }
  // 409 (a pass already running) is counted like any other refusal.
  if (res.status >= 300) {
    refused[`${kind} ${res.status}`] = (refused[`${kind} ${res.status}`] ?? 0) + 1;
  }
}

const client = async () => {
  for (
    await sleep(Math.random() * THINK_MS);
    wallMs() < END;
    await sleep(Math.random() * THINK_MS)
  ) {
    const kind = nextKind();
    await send(kind, KINDS[kind][1]());
  }
};
const passes = async () => {
  for (; !ONLY && wallMs() < END; await sleep(PASS_EVERY_MS)) {
    await send("orchestrate", { method: "POST", path: "/v1/orchestrate", headers: proc });
  }
};
await Promise.all([passes(), ...Array.from({ length: CLIENTS }, client)]);
const kinds = Object.fromEntries(Object.entries(samples).map(([k, s]) => [k, stats(s)]));
kinds.all = stats(Object.entries(samples).flatMap(([k, s]) => k === "orchestrate" ? [] : s));
console.log(`MIXED_RESULT ${JSON.stringify({ kinds, refused, slowest, seconds: MEASURE_S })}`);
