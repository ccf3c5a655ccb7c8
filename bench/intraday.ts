/**
 * The `intraday` part (docs/benchmarks.md, "The parts"; README "Intraday"): at each of
 * `BENCH_INTRADAY_SIZES` (100,000 and 1,000,000) locations, `BENCH_INTRADAY_ROUNDS` (5) intraday
 * passes in process on a fake clock, phase by phase, against day-ahead passes (goal < 1 s at
 * 1,000,000), and `BENCH_INTRADAY_TICK_ROUNDS` (5) batches → four files with the tick (the rig).
 * @module
 */
import { FakeClock } from "../lib/clock.ts";
import { type BridgeApp, createApp } from "../app.ts";
import { loadSettings } from "../lib/settings.ts";
import { addDays } from "../lib/domain/delivery_day.ts";
import { KEYS } from "../lib/store/keys.ts";
import { ingestForecasts, MAX_BATCH } from "../lib/pipeline/forecasts.ts";
import { runStep } from "../lib/pipeline/steps.ts";
import { submittableAggregate } from "../lib/pipeline/submit_checks.ts";
import { markDocumentSent, prepareDocuments } from "../lib/pipeline/schedule_documents.ts";
import { recordStep } from "../lib/pipeline/day_state.ts";
import { deliverFile } from "../lib/pipeline/publish.ts";
import { renderSchedule } from "../lib/fahrplan/render.ts";
import { scheduleFileName } from "../lib/fahrplan/document.ts";
import { failedRow, median, num, pinLoadGenerator, report, type Row, row } from "./common.ts";
import { sleep, tempDir } from "./common.ts";
import { call, sendAll } from "./http.ts";
import { customerForecasts, customerIds, forecastBatches, writeLocations } from "./portfolio.ts";
import { appEnv, key, startApp } from "./rig.ts";

const PART = "21 intraday";
const SIZES = (Deno.env.get("BENCH_INTRADAY_SIZES") ?? "100000,1000000").split(",").map(Number);
const CUSTOMERS = num("BENCH_INTRADAY_CUSTOMERS", 10_000);
const ROUNDS = num("BENCH_INTRADAY_ROUNDS", 5);
const TICK_ROUNDS = num("BENCH_INTRADAY_TICK_ROUNDS", 5);
const DAY = Deno.env.get("BENCH_INTRADAY_DAY") ?? "2026-12-02";
/** The orchestrator's tick interval in production (`Deno.cron` every minute), seconds. */
const TICK_WAIT_S = 60;
/** Today and tomorrow only (the days an intraday tick works on); the worker as configured. */
const EXTRA_ENV = {
  ORCHESTRATOR_HORIZON_DAYS: "1",
  // `BENCH_INTRADAY_FORMAT=cim`: CIM documents, each validated against ENTSO-E's XSD (issue 29).
  SCHEDULE_FORMAT: Deno.env.get("BENCH_INTRADAY_FORMAT") ?? "ess",
  PIPELINE_WORKER: Deno.env.get("PIPELINE_WORKER") ?? "true",
};

/** `HH:MM` Berlin on `day` as epoch ms. */
const berlin = (day: string, time: string) =>
  Temporal.PlainDate.from(day).toZonedDateTime({ timeZone: "Europe/Berlin", plainTime: time })
    .epochMilliseconds;
const since = (t: number) => (performance.now() - t) / 1000;

/** Seconds of each phase of one pass (the real `submit` step instead in a cross-check round). */
interface PassTimes {
  aggregate: number;
  freeze: number;
  render: number;
  write: number;
  submit?: number;
  frozenBefore?: string;
}

/**
 * One pass of `day`: `aggregate`, then what the `submit` step runs (freeze, render, write),
 * phase by phase; with `real` the `submit` step itself. Throws unless four documents went out.
 */
async function pass(app: BridgeApp, day: string, real: boolean): Promise<PassTimes> {
  const { ctx } = app;
  let t = performance.now();
  const lap = () => [since(t), t = performance.now()][0];
  await runStep(ctx, day, "aggregate", "bench");
  const aggregate = lap();
  if (real) {
    const r = await runStep(ctx, day, "submit", "bench") as { documents: unknown[] };
    if (r.documents.length !== 4) throw new Error(`handed over ${r.documents.length} documents`);
    return { aggregate, freeze: NaN, render: NaN, write: NaN, submit: lap() };
  }
  const [cfg, now] = [await ctx.config.effective(), ctx.clock.now()];
  const agg = await submittableAggregate(ctx.kv, day, cfg, "handed over");
  const { format, docs, unchanged } = await prepareDocuments(ctx.kv, agg, cfg, now);
  const freeze = lap();
  const files = docs.map((p) => ({ p, file: scheduleFileName(p.doc) }))
    .map((f) => ({ ...f, xml: renderSchedule(f.p.doc, format) }));
  const render = lap();
  const documents = [];
  for (const { p, file, xml } of files) {
    const location = await deliverFile(cfg, file, xml, ctx.redactor);
    const { receiver, messageVersion: version } = p.doc;
    documents.push({ control_area: p.area, receiver, version, file, location });
    await markDocumentSent(ctx.kv, p, file, now);
  }
  const detail = { channel: "files", format, documents, unchanged };
  const at = new Date(now).toISOString();
  await recordStep(ctx.kv, day, "submitted", { version: agg.version, at, by: "bench", detail });
  if (documents.length !== 4) throw new Error(`handed over ${documents.length} documents`);
  return { aggregate, freeze, render, write: lap(), frozenBefore: docs[0]?.frozen_before };
}

/** Stores forecasts in batches as the route does, at `nowMs`. */
async function ingest(app: BridgeApp, items: ReturnType<typeof customerForecasts>, nowMs: number) {
  for (let i = 0; i < items.length; i += MAX_BATCH) {
    await ingestForecasts(app.ctx.kv, items.slice(i, i + MAX_BATCH), "bench", nowMs);
  }
}

/** What one size measured; fields are missing when the run did not get that far. */
interface SizeResult {
  n: number;
  firstVersionS?: number;
  dayAhead?: { split: PassTimes[]; real: PassTimes[] };
  intraday?: { split: PassTimes[]; real: PassTimes[] };
  tick?: { files: number; tickS: number; ran: string }[];
  failure?: string;
}

/** Warm-up, then `ROUNDS` split and `ROUNDS` real passes alternating, a minute apart. */
async function rounds(app: BridgeApp, clock: FakeClock, ids: number[], first: number) {
  const out = { split: [] as PassTimes[], real: [] as PassTimes[] };
  for (let r = 0; r <= 2 * ROUNDS; r++) {
    clock.advance(60_000);
    await ingest(app, customerForecasts(ids, DAY, first + r), clock.now());
    const p = await pass(app, DAY, r % 2 === 0);
    if (r > 0) out[r % 2 === 1 ? "split" : "real"].push(p);
  }
  return out;
}

/** (a): the day-ahead version, day-ahead rounds, intraday rounds; in this process. */
async function inProcess(dir: string, res: SizeResult): Promise<void> {
  const settings = loadSettings({
    ...appEnv(dir, `p-${crypto.randomUUID()}`, `e-${crypto.randomUUID()}`),
    ...EXTRA_ENV,
  });
  const clock = new FakeClock(berlin(addDays(DAY, -1), "10:00"));
  const kv = await Deno.openKv(settings.kvPath);
  const app = await createApp({ settings, kv, clock });
  try {
    const ids = customerIds(res.n, CUSTOMERS);
    const t = performance.now();
    await ingest(app, customerForecasts(ids, DAY, 0), clock.now());
    for (const step of ["forecast", "aggregate", "submit"] as const) {
      await runStep(app.ctx, DAY, step, "bench");
    }
    res.firstVersionS = since(t);
    res.dayAhead = await rounds(app, clock, ids, 1);
    clock.set(berlin(DAY, "09:07") - 60_000);
    res.intraday = await rounds(app, clock, ids, 100);
  } finally {
    await app.close();
    kv.close();
  }
}

/** (b): a forecast batch over HTTP, then the tick, until four new documents are in the outbox. */
async function tickRounds(dir: string, res: SizeResult): Promise<void> {
  const at = String(berlin(DAY, "09:20"));
  const control = { BENCH_CONTROL: "1", BENCH_CLOCK_AT: at, ORCHESTRATOR_AUTOSTART: "true" };
  const app = await startApp(dir, { env: { ...EXTRA_ENV, ...control } });
  const xml = () => [...Deno.readDirSync(`${dir}/outbox`)].filter((e) => e.name.endsWith(".xml"));
  const ids = customerIds(res.n, CUSTOMERS).slice(0, 500);
  try {
    res.tick = [];
    for (let r = 0; r <= TICK_ROUNDS; r++) {
      const before = xml().length;
      await sendAll(`${app.url}/v1/forecasts`, forecastBatches(ids, DAY, 500, 200 + r), {
        headers: key(app.ext),
      });
      const accepted = performance.now();
      const tick = call(`${app.url}/__bench/tick`, { method: "POST", limitMs: 300_000 });
      while (xml().length < before + 4 && since(accepted) < 300) await sleep(2);
      const files = since(accepted);
      const { ms, outcome } = JSON.parse((await tick).text);
      const days: { delivery_day: string; ran: string[] }[] = outcome.report?.days ?? [];
      const ran = days.map((d) => `${d.delivery_day}: ${d.ran.join(" → ")}`).join("; ");
      console.log(
        `tick ${r}${r ? "" : " (warm-up)"}: batch → files ${files.toFixed(2)} s (${ran})`,
      );
      if (xml().length < before + 4) throw new Error(`tick ${r}: no four new documents (${ran})`);
      if (r > 0) res.tick.push({ files, tickS: ms / 1000, ran });
      else await call(`${app.url}/__bench/settle`, { method: "POST", limitMs: 300_000 });
    }
  } finally {
    await app.stop();
  }
}

const PHASES = ["aggregate", "freeze", "render", "write"] as const;
const phaseNames = PHASES.join(" → ");
const total = (p: PassTimes) => p.aggregate + p.freeze + p.render + p.write;
const s3 = (x: number) => `${x.toFixed(3)} s`;

/** The part's rows, per size: the pass, its phases, the cross-check, the tick. */
function buildRows(results: SizeResult[]): Row[] {
  return results.flatMap((r) => {
    const n = r.n.toLocaleString("en-US");
    const [ia, da] = [r.intraday?.split ?? [], r.dayAhead?.split ?? []];
    const [ir, t] = [r.intraday?.real ?? [], r.tick ?? []];
    const med = (ps: PassTimes[], f: (p: PassTimes) => number) => median(ps.map(f));
    const one = med(ia, total);
    const phases = PHASES.map((k) => `${k} ${s3(med(ia, (p) => p[k]))}`).join(", ");
    const frozen = ia.map((p) => p.frozenBefore?.slice(11, 16)).join(", ");
    const format = EXTRA_ENV.SCHEDULE_FORMAT.toUpperCase();
    const [agg, sub] = [med(ir, (p) => p.aggregate), med(ir, (p) => p.submit!)];
    const files = t.map((x) => x.files);
    const pass = `intraday pass at ${n} (${CUSTOMERS} customer forecasts, 09:08): ${phaseNames}`;
    const batch =
      `forecast batch of 500 accepted → 4 new files in the outbox at ${n}, tick at once`;
    const check = `  cross-check at ${n}: through the real aggregate + submit steps`;
    const worst = `  worst case at ${n}: tick interval ${TICK_WAIT_S} s + slowest processing`;
    const rows = [
      row(PART, `${pass} 4 ${format}`, one, "s", {
        base: ["day-ahead pass, same size", med(da, total)],
        goal: r.n === 1_000_000 ? ["< 1 s", one < 1] : undefined,
        note: `phases (median): ${phases}; frozen before ${frozen} UTC; version 1 (cold) ${
          r.firstVersionS?.toFixed(2)
        } s`,
      }),
      ...PHASES.map((k) =>
        row(PART, `  phase ${k} at ${n} (intraday, median)`, med(ia, (p) => p[k]), "s", {
          base: ["same phase, day-ahead", med(da, (p) => p[k])],
        })
      ),
      row(PART, check, agg + sub, "s", {
        base: ["split pass", one],
        note: `aggregate ${s3(agg)}, submit step ${s3(sub)}`,
      }),
      row(PART, batch, median(files), "s", {
        base: ["in-process intraday pass", one],
        note: `rounds ${files.map((x) => x.toFixed(2)).join(", ")} s (${t[0]?.ran})`,
      }),
      row(PART, worst, TICK_WAIT_S + Math.max(...files), "s"),
    ];
    return r.failure ? [...rows, failedRow(PART, `at ${n}: ${r.failure}`)] : rows;
  });
}

/** Runs the part; its rows. */
export async function main(): Promise<Row[]> {
  console.log(
    `${await pinLoadGenerator()}; sizes ${SIZES.join(", ")}, ${CUSTOMERS} customers, day ${DAY}`,
  );
  const results: SizeResult[] = [];
  for (const n of SIZES) {
    const dir = await tempDir("bench-intraday-");
    const res: SizeResult = { n };
    results.push(res);
    try {
      const kv = await Deno.openKv(`${dir.path}/bridge.kv`);
      await writeLocations(kv, n);
      await kv.atomic().sum(KEYS.masterDataVersion, 1n).commit();
      kv.close();
      await inProcess(dir.path, res);
      await tickRounds(dir.path, res);
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
