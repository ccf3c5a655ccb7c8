/**
 * The in-process side of `bench/intraday.ts`: the portfolio written into KV, the app's
 * environment (files channel, ESS documents, local outbox), customer forecasts that change every
 * round, and one pass of a delivery day timed phase by phase.
 *
 * The split pass ({@link splitPass}) runs what the orchestrator's `aggregate` and `submit` steps
 * run, in the same order and with the same functions, with a timer between the phases:
 * aggregate — `runStep(…, "aggregate")` (in the app's pipeline worker, event included);
 * freeze — the submittable aggregate read, each area's version history, the frozen quarter-hours,
 * the message versions and the checked documents (`prepareDocuments`); render — the ESS XML
 * (`renderSchedule`); write — each file to the outbox (`deliverFile`), the version recorded sent
 * (`markDocumentSent`) and the `submitted` step. `submitFiles` (lib/pipeline/submit_files.ts)
 * interleaves render and write per document; the work is the same. {@link realPass} runs the real
 * `submit` step instead, as a cross-check of the split.
 * @module
 */
import type { BridgeApp } from "../app.ts";
import { KEYS } from "../lib/store/keys.ts";
import { ingestForecasts, MAX_BATCH } from "../lib/pipeline/forecasts.ts";
import { runStep } from "../lib/pipeline/steps.ts";
import { submittableAggregate } from "../lib/pipeline/submit_checks.ts";
import { markDocumentSent, prepareDocuments } from "../lib/pipeline/schedule_documents.ts";
import { recordStep } from "../lib/pipeline/day_state.ts";
import { deliverFile } from "../lib/pipeline/publish.ts";
import { renderSchedule } from "../lib/fahrplan/render.ts";
import { scheduleFileName } from "../lib/fahrplan/document.ts";
import { PARTIES } from "../tests/support/fahrplan.ts";
import { benchMalo, writeLocations } from "./portfolio.ts";

/** The app's environment on `dir` (KV file, outbox and inbox there). */
export function appEnv(dir: string, proc: string, ext: string): Record<string, string> {
  return {
    KV_PATH: `${dir}/bridge.kv`,
    PROCESS_API_KEYS: `ops:${proc}`,
    EXTERNAL_API_KEYS: `customer:${ext}`,
    RATE_LIMIT_PER_MINUTE: "0",
    HOLIDAY_REGION: "DE",
    PUBLISH_TARGET: "outbox",
    OUTBOX_DIR: `${dir}/outbox`,
    SCHEDULE_INBOX_DIR: `${dir}/inbox`,
    SCHEDULE_CHANNEL: "files",
    SCHEDULE_FORMAT: "ess",
    SENDER_EIC: PARTIES.sender,
    BALANCING_GROUP: PARTIES.balancingGroup,
    COUNTERPARTY_EIC: PARTIES.counterparty,
    // Today and tomorrow: the days an intraday tick works on (fewer days to warm up).
    ORCHESTRATOR_HORIZON_DAYS: "1",
    // Diagnostics (`--cpu-prof` sees the main thread only): `PIPELINE_WORKER=false` passes on.
    PIPELINE_WORKER: Deno.env.get("PIPELINE_WORKER") ?? "true",
  };
}

/** `HH:MM` Berlin on `day` (`YYYY-MM-DD`) as epoch ms. */
export function berlin(day: string, time: string): number {
  return Temporal.PlainDate.from(day).toZonedDateTime({
    timeZone: "Europe/Berlin",
    plainTime: Temporal.PlainTime.from(time),
  }).epochMilliseconds;
}

/** Writes `n` market locations straight into KV and bumps the master-data version once. */
export async function writePortfolio(kvPath: string, n: number): Promise<void> {
  await Deno.mkdir(kvPath.slice(0, kvPath.lastIndexOf("/")), { recursive: true });
  const kv = await Deno.openKv(kvPath);
  try {
    await writeLocations(kv, n);
    await kv.atomic().sum(KEYS.masterDataVersion, 1n).commit();
  } finally {
    kv.close();
  }
}

/**
 * The locations with a customer forecast: `customers` of the `n`, spread over the portfolio (every
 * `step`-th, `step` the odd number at or below `n / customers`, so they fall in all four control
 * areas), as customers' MaLo-IDs are in a real one — not a run of neighbouring IDs, which KV
 * would read in one range.
 */
export function customerIds(n: number, customers: number): number[] {
  const even = Math.max(1, Math.floor(n / customers));
  const step = even % 2 === 0 ? even - 1 : even;
  return Array.from({ length: Math.min(n, customers) }, (_, i) => i * step);
}

/**
 * Customer forecasts (kW per quarter-hour) of the locations `ids` for `day`, different in every
 * quarter-hour for every `round` (0.1 kW a location, 250 kW an area per round at 10,000).
 */
export function customerForecasts(ids: number[], day: string, qh: number, round: number) {
  return ids.map((i) => {
    const base = 1 + (i % 97) / 10 + round / 10;
    return {
      malo_id: benchMalo(i),
      delivery_day: day,
      values: Array.from({ length: qh }, (_, k) => Math.round((base + (k % 7) / 3) * 1000) / 1000),
    };
  });
}

/** Stores forecasts in batches of 500 as the route does (`ingestForecasts`), at `nowMs`. */
export async function ingest(
  app: BridgeApp,
  items: ReturnType<typeof customerForecasts>,
  nowMs: number,
) {
  for (let i = 0; i < items.length; i += MAX_BATCH) {
    await ingestForecasts(app.ctx.kv, items.slice(i, i + MAX_BATCH), "bench", nowMs);
  }
}

/** Seconds of each phase of one pass, and the documents' versions. */
export interface PassTimes {
  aggregate: number;
  freeze: number;
  render: number;
  write: number;
  /** The real `submit` step ({@link realPass}) instead of freeze + render + write. */
  submit?: number;
  files: string[];
  /** Split pass: the documents' first open quarter-hour (UTC). */
  frozenBefore?: string;
}

const since = (t: number) => (performance.now() - t) / 1000;

/**
 * One pass of `day`, phase by phase (see the module).
 * @throws when the pass did not hand over one document per control area
 */
export async function splitPass(app: BridgeApp, day: string): Promise<PassTimes> {
  const { ctx } = app;
  let t = performance.now();
  await runStep(ctx, day, "aggregate", "bench");
  const aggregate = since(t);
  t = performance.now();
  const cfg = await ctx.config.effective();
  const now = ctx.clock.now();
  const agg = await submittableAggregate(ctx.kv, day, cfg, "handed over");
  const { format, docs, unchanged } = await prepareDocuments(ctx.kv, agg, cfg, now);
  const freeze = since(t);
  t = performance.now();
  const rendered = docs.map((p) => ({
    p,
    file: scheduleFileName(p.doc),
    xml: renderSchedule(p.doc, format),
  }));
  const render = since(t);
  t = performance.now();
  const documents = [];
  for (const { p, file, xml } of rendered) {
    const location = await deliverFile(cfg, file, xml, ctx.redactor);
    documents.push({
      control_area: p.area,
      receiver: p.doc.receiver,
      version: p.doc.messageVersion,
      file,
      location,
    });
    await markDocumentSent(ctx.kv, p, file, now);
  }
  await recordStep(ctx.kv, day, "submitted", {
    version: agg.version,
    at: new Date(now).toISOString(),
    by: "bench",
    detail: { channel: "files", format, documents, unchanged },
  });
  const write = since(t);
  const files = documents.map((d) => d.file);
  return checked({ aggregate, freeze, render, write, files, frozenBefore: docs[0]?.frozen_before });
}

/** One pass through the real steps: `aggregate`, then `submit` (seconds each). */
export async function realPass(app: BridgeApp, day: string): Promise<PassTimes> {
  let t = performance.now();
  await runStep(app.ctx, day, "aggregate", "bench");
  const aggregate = since(t);
  t = performance.now();
  const r = await runStep(app.ctx, day, "submit", "bench") as { documents: { file: string }[] };
  const submit = since(t);
  const files = r.documents.map((d) => d.file);
  return checked({ aggregate, freeze: NaN, render: NaN, write: NaN, submit, files });
}

function checked(p: PassTimes): PassTimes {
  if (p.files.length !== 4) throw new Error(`expected 4 documents, handed over ${p.files}`);
  return p;
}
