/**
 * Issue 21 — intraday schedule versions at 100,000 and 1,000,000 market locations
 * (`BENCH_INTRADAY_SIZES`) with `BENCH_INTRADAY_CUSTOMERS` (10,000) customer forecasts (spread over
 * the portfolio, every `n / 10,000`-th location: `customerIds`), files
 * channel, ESS documents to the local outbox, four control areas. Per size, on one KV file with
 * the portfolio of `bench/portfolio.ts` written straight into it:
 *
 * (a) in this process (the real app from `createApp`, its pipeline worker, a fake clock; this
 *     process pinned to the load core): the day-ahead version of `BENCH_INTRADAY_DAY`
 *     (2026-12-02) at 10:00 Berlin the day before (forecast, aggregate, submit: version 1), then
 *     `BENCH_INTRADAY_ROUNDS` (5) day-ahead passes — the baseline — and then, on the running day
 *     from 09:07 Berlin, a minute apart, as many intraday passes (quarter-hours before 09:30
 *     frozen), each after the 10,000 customer forecasts changed (every quarter-hour, so every
 *     area gets a new version). A pass is aggregate → freeze → render → write four documents
 *     (`bench/intraday_pass.ts`), timed per phase; rounds alternate with passes through the real
 *     `submit` step (the cross-check row); one discarded warm-up pass before each kind. Median
 *     of the rounds. Goal: intraday pass < 1 s at 1,000,000.
 * (b) the app in its own process (`bench/servers/intraday_app.ts`, pinned to the server core, its
 *     clock on the running day from 09:20 Berlin): one `POST /v1/forecasts` batch of 500 changed
 *     customer forecasts, then at once the orchestrator's tick (`POST /__bench/tick`: the next
 *     minute, one `orchestrator.tick`: answers import, forecast → aggregate → publish → submit of
 *     the day); measured from the batch's 200 to the fourth new document in the outbox (polled
 *     every 2 ms), median of `BENCH_INTRADAY_TICK_ROUNDS` (5) after one warm-up tick. In
 *     production the tick comes every minute: the worst case adds a whole minute of waiting.
 *
 * Run alone: `deno run -A bench/intraday.ts` (`BENCH_INTRADAY_SIZES=100000` for the small size
 * only), or `deno task bench -- intraday`. Env: `BENCH_PIN=0` (do not pin).
 * @module
 */
import { FakeClock } from "../lib/clock.ts";
import { createApp } from "../app.ts";
import { loadSettings } from "../lib/settings.ts";
import { addDays, quarterHourCount } from "../lib/domain/delivery_day.ts";
import { report, type Row, spawnServer, tempDir } from "./common.ts";
import { call, pinLoadGenerator } from "./million_http.ts";
import {
  appEnv,
  berlin,
  customerForecasts,
  customerIds,
  ingest,
  type PassTimes,
  realPass,
  splitPass,
  writePortfolio,
} from "./intraday_pass.ts";
import { buildRows, type SizeResult, TICK_WAIT_S } from "./intraday_rows.ts";
import { runStep } from "../lib/pipeline/steps.ts";

const SIZES = (Deno.env.get("BENCH_INTRADAY_SIZES") ?? "100000,1000000").split(",").map(Number);
const CUSTOMERS = Number(Deno.env.get("BENCH_INTRADAY_CUSTOMERS") ?? 10_000);
const ROUNDS = Number(Deno.env.get("BENCH_INTRADAY_ROUNDS") ?? 5);
const TICK_ROUNDS = Number(Deno.env.get("BENCH_INTRADAY_TICK_ROUNDS") ?? 5);
const DAY = Deno.env.get("BENCH_INTRADAY_DAY") ?? "2026-12-02";
const QH = quarterHourCount(DAY);
/** Customer forecasts of one batch in (b) (the route's largest batch). */
const TICK_BATCH = 500;

/** Warm-up, then `ROUNDS` split and `ROUNDS` real passes alternating, a minute apart. */
async function rounds(
  app: Awaited<ReturnType<typeof createApp>>,
  clock: FakeClock,
  ids: number[],
  first: number,
): Promise<{ split: PassTimes[]; real: PassTimes[] }> {
  const split: PassTimes[] = [];
  const real: PassTimes[] = [];
  for (let r = 0; r <= 2 * ROUNDS; r++) {
    clock.advance(60_000);
    await ingest(app, customerForecasts(ids, DAY, QH, first + r), clock.now());
    const p = r % 2 === 1 ? await splitPass(app, DAY) : await realPass(app, DAY);
    if (r > 0) (r % 2 === 1 ? split : real).push(p);
  }
  return { split, real };
}

/** (a): the day-ahead version, day-ahead rounds, intraday rounds; in this process. */
async function inProcess(dir: string, n: number, res: SizeResult): Promise<void> {
  const env = appEnv(dir, `bench-proc-${crypto.randomUUID()}`, `bench-ext-${crypto.randomUUID()}`);
  const settings = loadSettings(env);
  const clock = new FakeClock(berlin(addDays(DAY, -1), "10:00"));
  const kv = await Deno.openKv(settings.kvPath);
  const app = await createApp({ settings, kv, clock });
  try {
    const ids = customerIds(n, CUSTOMERS);
    let t = performance.now();
    await ingest(app, customerForecasts(ids, DAY, QH, 0), clock.now());
    for (const step of ["forecast", "aggregate", "submit"] as const) {
      await runStep(app.ctx, DAY, step, "bench");
    }
    res.firstVersionS = (performance.now() - t) / 1000;
    console.log(`${n}: day-ahead version 1 in ${res.firstVersionS.toFixed(2)} s`);
    res.dayAhead = await rounds(app, clock, ids, 1);
    clock.set(berlin(DAY, "09:07") - 60_000);
    t = performance.now();
    res.intraday = await rounds(app, clock, ids, 100);
    console.log(`${n}: intraday rounds in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  } finally {
    await app.close();
    kv.close();
  }
}

/** (b): a forecast batch over HTTP, then the tick, until the four documents are in the outbox. */
async function tickRounds(dir: string, n: number, res: SizeResult): Promise<void> {
  const ext = `bench-ext-${crypto.randomUUID()}`;
  const env = {
    ...appEnv(dir, `bench-proc-${crypto.randomUUID()}`, ext),
    BENCH_CLOCK_AT: String(berlin(DAY, "09:20")),
    ORCHESTRATOR_AUTOSTART: "true",
  };
  const app = await spawnServer("bench/servers/intraday_app.ts", env, [], { pinned: true });
  const outbox = `${dir}/outbox`;
  const xmlCount = () =>
    [...Deno.readDirSync(outbox)].filter((e) => e.name.endsWith(".xml")).length;
  try {
    res.tick = [];
    const batchIds = customerIds(n, CUSTOMERS).slice(0, TICK_BATCH);
    for (let r = 0; r <= TICK_ROUNDS; r++) {
      const before = xmlCount();
      const body = JSON.stringify({
        forecasts: customerForecasts(batchIds, DAY, QH, 200 + r).map((f) => ({
          market_location_id: f.malo_id,
          delivery_day: f.delivery_day,
          unit: "kW",
          values: f.values,
        })),
      });
      await call(`${app.url}/v1/forecasts`, {
        method: "POST",
        headers: { "x-api-key": ext, "content-type": "application/json" },
        body,
        limitMs: 60_000,
        what: "forecast batch",
      });
      const accepted = performance.now();
      const tick = call(`${app.url}/__bench/tick`, { method: "POST", limitMs: 300_000 });
      let files = NaN;
      while (performance.now() - accepted < 300_000) {
        if (xmlCount() >= before + 4) {
          files = (performance.now() - accepted) / 1000;
          break;
        }
        await new Promise((ok) => setTimeout(ok, 2));
      }
      const answer = JSON.parse((await tick).text) as {
        ms: number;
        outcome: { ran: boolean; report?: { days: { delivery_day: string; ran: string[] }[] } };
      };
      const ran = answer.outcome.report?.days.map((d) => `${d.delivery_day}: ${d.ran.join(" → ")}`)
        .join("; ") ?? JSON.stringify(answer.outcome);
      console.log(
        `tick ${r}${r === 0 ? " (warm-up)" : ""}: batch → files ${files.toFixed(2)} s; tick ${
          (answer.ms / 1000).toFixed(2)
        } s (${ran})`,
      );
      if (Number.isNaN(files)) throw new Error(`tick ${r}: no four new documents (${ran})`);
      if (r > 0) res.tick.push({ files, tickS: answer.ms / 1000, ran });
      else await call(`${app.url}/__bench/settle`, { method: "POST", limitMs: 300_000 });
    }
  } finally {
    await app.stop();
  }
}

export async function main(): Promise<Row[]> {
  const placement = await pinLoadGenerator();
  console.log(
    `${placement}; sizes ${SIZES.join(", ")}, ${CUSTOMERS} customer forecasts, day ${DAY}, ` +
      `${ROUNDS} rounds, ${TICK_ROUNDS} tick rounds; tick interval ${TICK_WAIT_S} s in production`,
  );
  const results: SizeResult[] = [];
  for (const n of SIZES) {
    const dir = await tempDir("bench-intraday-");
    const res: SizeResult = { n, customers: CUSTOMERS };
    results.push(res);
    try {
      const t = performance.now();
      await writePortfolio(`${dir.path}/bridge.kv`, n);
      console.log(`${n}: portfolio written in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      await inProcess(dir.path, n, res);
      await tickRounds(dir.path, n, res);
    } catch (err) {
      console.error(`FAILED at ${n}: ${(err as Error).stack}`);
      res.failure = (err as Error).message;
    } finally {
      await dir.remove();
    }
  }
  return buildRows(results);
}

if (import.meta.main) {
  report(await main());
  Deno.exit(0);
}
