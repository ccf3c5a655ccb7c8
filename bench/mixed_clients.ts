/**
 * The load side of the `mixed` part (`bench/mixed.ts`), run in its own process on the load core:
 * `BENCH_MIXED_CLIENTS` (32) closed-loop clients on keep-alive connections, each picking its next
 * request by the weights of {@link KINDS} and pausing a random 0..`BENCH_MIXED_THINK_MS` (100) ms
 * between requests, while one more loop asks for an orchestrator pass (`POST /v1/orchestrate`)
 * every `BENCH_MIXED_PASS_EVERY_S` (5) seconds after the previous one answered. The first
 * `BENCH_MIXED_WARMUP_S` (5) seconds are discarded, then `BENCH_MIXED_SECONDS` (180) are measured.
 *
 * Input (env): `MIXED_URL` (loopback only), `MIXED_PROC_KEY`, `MIXED_EXT_KEY`, `MIXED_N`
 * (registered locations), `MIXED_DAYS` (comma-separated open delivery days with forecasts).
 * Output: one `MIXED_RESULT <json>` line: per kind `{n, p50, p99, max, mean}` in ms, `all` over
 * every client request (the pass requests are reported apart, as `orchestrate`), the non-2xx
 * answers by kind and status, and the measured seconds. `BENCH_MIXED_ONLY=<kind>`: one kind, no
 * passes (the baseline).
 * @module
 */
import { sleep, stats, wallMs } from "./common.ts";
import { AREAS, benchLocation, benchMalo } from "./portfolio.ts";
import { quarterHourCount } from "../lib/domain/delivery_day.ts";

const env = (k: string, d?: string) => Deno.env.get(k) ?? d ?? "";
const URL_ = env("MIXED_URL");
if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(URL_)) throw new Error(`not a loopback URL: ${URL_}`);
const PROC = env("MIXED_PROC_KEY");
const EXT = env("MIXED_EXT_KEY");
const N = Number(env("MIXED_N", "10000"));
const DAYS = env("MIXED_DAYS").split(",");
const CLIENTS = Number(env("BENCH_MIXED_CLIENTS", "32"));
const THINK_MS = Number(env("BENCH_MIXED_THINK_MS", "100"));
const PASS_EVERY_MS = Number(env("BENCH_MIXED_PASS_EVERY_S", "5")) * 1000;
const WARMUP_MS = Number(env("BENCH_MIXED_WARMUP_S", "5")) * 1000;
const MEASURE_MS = Number(env("BENCH_MIXED_SECONDS", "180")) * 1000;
/** Forecasts per `POST /v1/forecasts` of the mix. */
const BATCH = Number(env("BENCH_MIXED_BATCH", "100"));

const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
const proc = { "x-api-key": PROC };
const ext = { "x-api-key": EXT, "content-type": "application/json" };

/** A forecast batch body for `BATCH` random registered locations of one open day. */
function forecastBody(): string {
  const day = pick(DAYS);
  const qh = quarterHourCount(day);
  const scale = 0.5 + Math.random();
  const start = Math.floor(Math.random() * Math.max(1, N / 2 - BATCH));
  const forecasts = Array.from({ length: BATCH }, (_, j) => ({
    market_location_id: benchMalo(start + j),
    delivery_day: day,
    unit: "kW",
    values: Array.from({ length: qh }, (_, k) => Math.round(scale * (1 + (k % 7) / 3) * 1e3) / 1e3),
  }));
  return JSON.stringify({ forecasts });
}

/** One request of a kind: method, path, headers, body. */
type Req = { method: string; path: string; headers: Record<string, string>; body?: string };

/** The mix: kind → weight and request maker. */
const KINDS: Record<string, { weight: number; make: () => Req }> = {
  status: {
    weight: 30,
    make: () => ({ method: "GET", path: "/v1/console/status", headers: proc }),
  },
  overview: {
    weight: 15,
    make: () => ({ method: "GET", path: "/v1/console/delivery-days", headers: proc }),
  },
  events: {
    weight: 20,
    make: () => ({ method: "GET", path: "/v1/console/events?limit=100", headers: proc }),
  },
  location_put: {
    weight: 20,
    make: () => {
      const i = Math.floor(Math.random() * N);
      const { malo_id, updated_at: _, ...input } = benchLocation(i, "");
      input.annual_kwh = Math.round((input.annual_kwh ?? 1000) * (0.9 + Math.random() / 5));
      return {
        method: "PUT",
        path: `/v1/market-locations/${malo_id}`,
        headers: ext,
        body: JSON.stringify(input),
      };
    },
  },
  schedule: {
    weight: 10,
    make: () => ({
      method: "GET",
      path: `/v1/delivery-days/${pick(DAYS)}/schedules/${pick(AREAS)}?format=${
        Math.random() < 0.5 ? "ess" : "cim"
      }`,
      headers: proc,
    }),
  },
  forecast_batch: {
    weight: 5,
    make: () => ({ method: "POST", path: "/v1/forecasts", headers: ext, body: forecastBody() }),
  },
};
/** `BENCH_MIXED_ONLY=<kind>`: that kind alone and no passes (the part's baseline). */
const ONLY = env("BENCH_MIXED_ONLY");
const TOTAL_WEIGHT = Object.values(KINDS).reduce((a, k) => a + k.weight, 0);

function nextKind(): string {
  if (ONLY) return ONLY;
  let r = Math.random() * TOTAL_WEIGHT;
  for (const [name, k] of Object.entries(KINDS)) if ((r -= k.weight) < 0) return name;
  return "status";
}

const samples: Record<string, number[]> = {};
/** The slowest measured requests: wall-clock start (ms), kind, path, status, ms. */
const slowest: { at: number; kind: string; path: string; status: number; ms: number }[] = [];
const refused: Record<string, number> = {};
const t0 = wallMs();
const measureFrom = t0 + WARMUP_MS;
const end = measureFrom + MEASURE_MS;

/** Sends one request; records its latency (ms) under `kind` when it started in the window. */
async function send(kind: string, r: Req): Promise<number> {
  const start = wallMs();
  const res = await fetch(`${URL_}${r.path}`, {
    method: r.method,
    headers: r.headers,
    body: r.body,
  });
  await res.arrayBuffer();
  const ms = wallMs() - start;
  if (start >= measureFrom && start < end) {
    (samples[kind] ??= []).push(ms);
    if (kind !== "orchestrate" && (ms > 300 || slowest.length < 10)) {
      slowest.push({ at: start, kind, path: r.path, status: res.status, ms });
      slowest.sort((a, b) => b.ms - a.ms).splice(20);
    }
    if (res.status >= 300) {
      const k = `${kind} ${res.status}`;
      refused[k] = (refused[k] ?? 0) + 1;
    }
  }
  return res.status;
}

async function client(): Promise<void> {
  await sleep(Math.random() * THINK_MS);
  while (wallMs() < end) {
    const kind = nextKind();
    await send(kind, KINDS[kind].make());
    await sleep(Math.random() * THINK_MS);
  }
}

async function passes(): Promise<void> {
  if (ONLY) return;
  while (wallMs() < end) {
    // 409 (a pass already running) is counted like any other refusal.
    await send("orchestrate", { method: "POST", path: "/v1/orchestrate", headers: proc });
    await sleep(PASS_EVERY_MS);
  }
}

await Promise.all([passes(), ...Array.from({ length: CLIENTS }, client)]);
const all: number[] = [];
const out: Record<string, ReturnType<typeof stats>> = {};
for (const [kind, s] of Object.entries(samples)) {
  out[kind] = stats(s);
  if (kind !== "orchestrate") all.push(...s);
}
out.all = stats(all);
console.log(
  `MIXED_RESULT ${JSON.stringify({ kinds: out, refused, slowest, seconds: MEASURE_MS / 1000 })}`,
);
