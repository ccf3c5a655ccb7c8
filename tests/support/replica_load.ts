/**
 * Concurrent master-data and forecast load from two replicas on one KV file (docs/architecture.md,
 * "Writes and concurrency"): per replica, single registrations (`PUT /v1/market-locations/{id}`,
 * each location created and then replaced by the same client), batch registrations (`PUT
 * /v1/market-locations`, each batch created and then replaced) and forecast uploads (`POST
 * /v1/forecasts`) for a pool of locations registered first, all at the same time. Counts the
 * answers by class; a 503 is sent again after its `Retry-After` (as a client would), up to
 * {@link MAX_RESENDS} times. Used by `tests/integration/replicas_contention_test.ts` and
 * `bench/replicas.ts`.
 * @module
 */
import { addDays, localDayOf, quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { EXT } from "./keys.ts";
import { location as portfolioLocation, type LocationInput } from "./profile_portfolio.ts";
import { AREAS, maloId } from "./portfolio.ts";

/** Sizes of the load, per replica. */
export interface LoadSize {
  /** Single writes per replica (half the locations, each written twice). */
  singles: number;
  /** Batch registrations per replica, each sent twice (created, then replaced). */
  batches: number;
  /** Locations per batch (at most 500). */
  batchSize: number;
  /** Forecast uploads per replica, each for `forecastSize` pool locations. */
  forecasts: number;
  forecastSize: number;
  /** Requests in flight per replica. */
  concurrency: number;
}

/** The answers of one run. */
export interface LoadCounts {
  ok2xx: number;
  /** 503 answers (each sent again); `retryAfterMissing` of them lacked a `Retry-After`. */
  s503: number;
  retryAfterMissing: number;
  /** Other 5xx answers (never expected). */
  other5xx: number;
  /** Anything else (4xx), with the first few bodies. */
  other: number;
  samples: string[];
  /** Requests that still had no 2xx after the resends. */
  failed: number;
}

/** What the run registered: every location with its final fields, by MaLo-ID. */
export type Expected = Map<string, LocationInput>;

/** Sends a 503 again at most this often. */
const MAX_RESENDS = 5;
const headers = { "x-api-key": EXT, "content-type": "application/json" };

/** The final fields of a location `n` (a replace moves it to another class). */
function finalOf(n: number): LocationInput {
  const first = portfolioLocation(n);
  return {
    ...first,
    control_area: first.control_area === AREAS.tennet ? AREAS.amprion : AREAS.tennet,
  };
}

/**
 * Runs the load against replicas `urls` (two base URLs on one KV file) and returns the counts
 * and every location registered with its final fields. The forecast day is the day after
 * tomorrow (Europe/Berlin, real clock): gate closure is ahead.
 */
export async function runReplicaLoad(
  urls: string[],
  size: LoadSize,
): Promise<{ counts: LoadCounts; expected: Expected; ms: number }> {
  const counts: LoadCounts = {
    ok2xx: 0,
    s503: 0,
    retryAfterMissing: 0,
    other5xx: 0,
    other: 0,
    samples: [],
    failed: 0,
  };
  const expected: Expected = new Map();
  const send = async (url: string, method: string, body: unknown): Promise<void> => {
    for (let n = 0; n <= MAX_RESENDS; n++) {
      const r = await fetch(url, { method, headers, body: JSON.stringify(body) });
      const text = await r.text();
      if (r.status < 300) {
        counts.ok2xx++;
        return;
      }
      if (r.status === 503) {
        counts.s503++;
        const after = Number(r.headers.get("retry-after"));
        if (!(after > 0)) counts.retryAfterMissing++;
        await new Promise((res) => setTimeout(res, Math.min(after > 0 ? after : 1, 2) * 1000));
        continue;
      }
      if (r.status >= 500) counts.other5xx++;
      else counts.other++;
      if (counts.samples.length < 5) counts.samples.push(`${method} ${r.status} ${text}`);
      break;
    }
    counts.failed++;
  };
  // The pool the forecasts are for, registered before the load.
  const pool = Array.from({ length: size.forecastSize * 2 }, (_, k) => portfolioLocation(k));
  for (const l of pool) expected.set(l.malo_id, l);
  for (let i = 0; i < pool.length; i += 500) {
    await send(`${urls[0]}/v1/market-locations`, "PUT", {
      market_locations: pool.slice(i, i + 500),
    });
  }
  const day = addDays(localDayOf(Date.now()), 2);
  const qh = quarterHourCount(day);
  const t0 = performance.now();
  await Promise.all(urls.map((url, r) => {
    const base = 1_000_000 + r * 500_000; // disjoint per replica
    const jobs: (() => Promise<void>)[] = [];
    const half = Math.floor(size.singles / 2);
    for (let k = 0; k < half; k++) {
      const n = base + k;
      const { malo_id, ...first } = portfolioLocation(n);
      const { malo_id: _, ...last } = finalOf(n);
      expected.set(malo_id, { malo_id, ...last });
      jobs.push(async () => {
        await send(`${url}/v1/market-locations/${malo_id}`, "PUT", first);
        await send(`${url}/v1/market-locations/${malo_id}`, "PUT", last);
      });
    }
    for (let b = 0; b < size.batches; b++) {
      const from = base + 200_000 + b * size.batchSize;
      const ns = Array.from({ length: size.batchSize }, (_, k) => from + k);
      for (const n of ns) expected.set(maloId(n + 1), finalOf(n));
      jobs.push(async () => {
        await send(`${url}/v1/market-locations`, "PUT", {
          market_locations: ns.map(portfolioLocation),
        });
        await send(`${url}/v1/market-locations`, "PUT", { market_locations: ns.map(finalOf) });
      });
    }
    const mine = pool.slice(r * size.forecastSize, (r + 1) * size.forecastSize);
    for (let f = 0; f < size.forecasts; f++) {
      jobs.push(() =>
        send(`${url}/v1/forecasts`, "POST", {
          forecasts: mine.map((l) => ({
            market_location_id: l.malo_id,
            delivery_day: day,
            unit: "kW",
            values: Array.from({ length: qh }, (_, q) => (q + f) % 50),
          })),
        })
      );
    }
    // Interleaved, so singles, batches and forecasts run at the same time.
    const shuffled = jobs.map((job, i) => ({ job, key: order(i) })).sort((a, b) => a.key - b.key);
    return pool_(shuffled.map((s) => s.job), size.concurrency);
  }));
  return { counts, expected, ms: performance.now() - t0 };
}

/** A deterministic shuffle key of index `i`. */
const order = (i: number) => (i * 2_654_435_761) % 4_294_967_296;

/** Runs `jobs` with at most `n` at once. */
async function pool_(jobs: (() => Promise<void>)[], n: number): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < jobs.length) await jobs[next++]();
  }));
}

/**
 * Every market location the replica `url` lists, by MaLo-ID; throws when a MaLo-ID is listed
 * twice.
 */
export async function listAll(url: string): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  let after: string | null = null;
  do {
    const q: string = after ? `&after=${after}` : "";
    const r = await fetch(`${url}/v1/market-locations?limit=1000${q}`, { headers });
    if (r.status !== 200) throw new Error(`list: ${r.status} ${await r.text()}`);
    const page = await r.json() as {
      market_locations: Record<string, unknown>[];
      next_after: string | null;
    };
    for (const answered of page.market_locations) {
      const id = answered.malo_id as string;
      if (out.has(id)) throw new Error(`${id} listed twice`);
      // `forecast_method` is answered as `auto` when none was sent (docs/weather.md): left out
      // here, so a location compares equal to the fields it was sent with.
      const { forecast_method, ...l } = answered;
      out.set(id, forecast_method === "auto" ? l : answered);
    }
    after = page.next_after;
  } while (after);
  return out;
}
