/**
 * The rows of `bench/intraday.ts` from what a run measured (a size that failed is a row with no
 * value and `met: false`).
 * @module
 */
import type { Row } from "./common.ts";
import type { PassTimes } from "./intraday_pass.ts";

const PART = "21 intraday";
/** The orchestrator's tick interval in production (`Deno.cron` every minute), seconds. */
export const TICK_WAIT_S = 60;

/** What one size measured; fields are missing when the run did not get that far. */
export interface SizeResult {
  n: number;
  customers: number;
  /** Seconds to the day-ahead version 1 (ingest, forecast, aggregate, submit; cold). */
  firstVersionS?: number;
  dayAhead?: { split: PassTimes[]; real: PassTimes[] };
  intraday?: { split: PassTimes[]; real: PassTimes[] };
  /** Per measured tick round: batch's 200 → fourth document (s), the tick's own duration (s). */
  tick?: { files: number; tickS: number; ran: string }[];
  failure?: string;
}

const median = (xs: number[]) => {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};
const PHASES = ["aggregate", "freeze", "render", "write"] as const;
const total = (p: PassTimes) => p.aggregate + p.freeze + p.render + p.write;
const s2 = (x: number) => `${x.toFixed(3)} s`;

/** The part's rows, per size: the pass, its phases, the cross-check, the tick. */
export function buildRows(results: SizeResult[]): Row[] {
  const rows: Row[] = [];
  for (const r of results) {
    const n = r.n.toLocaleString("en-US");
    const ia = r.intraday?.split ?? [];
    const da = r.dayAhead?.split ?? [];
    const pass = median(ia.map(total));
    const base = median(da.map(total));
    const is1M = r.n === 1_000_000;
    rows.push({
      part: PART,
      metric: `intraday pass at ${n} locations (${r.customers} customer forecasts, 09:08 on the ` +
        `day): aggregate → freeze → render → write 4 ESS files`,
      value: pass,
      unit: "s",
      baseline: "day-ahead pass, same size",
      baselineValue: base,
      ratio: pass / base,
      goal: is1M ? "< 1 s" : undefined,
      met: is1M ? pass < 1 : undefined,
      note: ia.length
        ? `phases (median): ${
          PHASES.map((k) => `${k} ${s2(median(ia.map((p) => p[k])))}`)
            .join(", ")
        }; frozen before ${ia.map((p) => p.frozenBefore?.slice(11, 16)).join(", ")} UTC; ` +
          `passes ${ia.map((p) => total(p).toFixed(3)).join(", ")} s; ` +
          `day-ahead version 1 (cold, with the forecast step) ${r.firstVersionS?.toFixed(2)} s`
        : "not measured",
    });
    // Every round's rows: median of the measured rounds (warm-up discarded).
    for (const k of PHASES) {
      const v = median(ia.map((p) => p[k]));
      const b = median(da.map((p) => p[k]));
      rows.push({
        part: PART,
        metric: `  phase ${k} at ${n} (intraday, median)`,
        value: v,
        unit: "s",
        baseline: "same phase, day-ahead",
        baselineValue: b,
        ratio: v / b,
      });
    }
    const ir = r.intraday?.real ?? [];
    const real = median(ir.map((p) => p.aggregate + (p.submit ?? NaN)));
    rows.push({
      part: PART,
      metric: `  cross-check at ${n}: through the real aggregate + submit steps`,
      value: real,
      unit: "s",
      baseline: "split pass",
      baselineValue: pass,
      ratio: real / pass,
      note: ir.length
        ? `aggregate ${s2(median(ir.map((p) => p.aggregate)))}, submit step ${
          s2(median(ir.map((p) => p.submit ?? NaN)))
        } (freeze + render + write + the event), ${ir.length} rounds interleaved with the split`
        : "not measured",
    });
    const t = r.tick ?? [];
    const files = median(t.map((x) => x.files));
    rows.push({
      part: PART,
      metric: `forecast batch of 500 accepted → 4 new files in the outbox at ${n}, ` +
        `tick at once (processing)`,
      value: files,
      unit: "s",
      baseline: "in-process intraday pass",
      baselineValue: pass,
      ratio: files / pass,
      note: t.length
        ? `rounds ${t.map((x) => x.files.toFixed(2)).join(", ")} s; the tick itself ${
          t.map((x) => x.tickS.toFixed(2)).join(", ")
        } s (answers import, then ${t[0].ran})`
        : "not measured",
    });
    const worst = Math.max(...t.map((x) => x.files));
    rows.push({
      part: PART,
      metric: `  worst case at ${n}: tick interval ${TICK_WAIT_S} s + slowest processing`,
      value: t.length ? TICK_WAIT_S + worst : NaN,
      unit: "s",
      note: t.length
        ? `on average half the interval + processing ≈ ${(TICK_WAIT_S / 2 + files).toFixed(1)} s`
        : undefined,
    });
    if (r.failure) {
      rows.push({
        part: PART,
        metric: `FAILED at ${n}: ${r.failure.slice(0, 200)}`,
        value: NaN,
        unit: "",
        met: false,
      });
    }
  }
  for (const row of rows) {
    if (row.ratio !== undefined && !Number.isFinite(row.ratio)) delete row.ratio;
  }
  return rows;
}
