/**
 * The rows of `bench/million.ts` from what a run measured (a goal that could not be measured —
 * a step over its limit, days beyond the budget — is a row with no value and `met: false`).
 * @module
 */
import type { Row, stats } from "./common.ts";
import type { DayTimes } from "./million_app.ts";

type Stats = ReturnType<typeof stats>;
const MiB = 2 ** 20;
const PART = "million";
/** Interval of the event ticker that feeds the console stream during the pass, ms. */
export const TICK_MS = 250;
/** The console stream must not fall silent this long during the pass, ms. */
export const SILENCE_GOAL_MS = 1000;

/** Everything a run measured; every field is missing when its phase did not get that far. */
export interface Results {
  n: number;
  smallN: number;
  customers: number;
  plannedDays: number;
  small?: {
    n: number;
    customers: number;
    forecast: number;
    aggregate: number;
    base?: { s: number; n: number };
  };
  bareReg?: { s: number; warmS: number; counted: number };
  reg?: { s: number; warmS: number; counted: number };
  /** The same watch as `busy`, on the idle app. */
  idle?: Results["busy"];
  /** App VmRSS after registration, before the first day, bytes. */
  rssIdle?: number;
  /**
   * Per day: `rss` the settled VmRSS (lowest over the day's settle window, 12 s after the first
   * and the last day), `rssShort` the lowest over its first 3 s (bytes).
   */
  days: { day: string; times: DayTimes; rss: number; rssShort: number }[];
  /** VmHWM reset before the measured pass (else VmHWM counts from the start). */
  hwmReset?: boolean;
  peakRss?: number;
  hwm?: number;
  exact?: { diff: number; profileOnly: number; largest: number; days: string[]; replaced?: number };
  busy?: {
    passS: number;
    /** Passes watched (days 3 to the last), pooled. */
    passes: number;
    health: Stats;
    status: Stats;
    failures: number;
    ticks: number;
    tickEvents: number;
    events: number;
    silenceMs: number;
    tickLatency: Stats;
  };
  /** After day `days`; `listed`: the days the answer held. */
  overview?: { days: number; listed: number } & Stats;
  base?: { s: number; n: number; from: string };
  appKvPath?: string;
  bareKvPath?: string;
  stoppedEarly?: string;
  failures?: string[];
}

const num = (n: number | undefined) => n === undefined ? NaN : n;
const fmtS = (s: number) => `${s.toFixed(2)} s`;
const at1M = (n: number) => n === 1_000_000 ? "" : " (goal at 1,000,000)";

/** The part's rows: goal rows in the issue's order. */
export function buildRows(r: Results): Row[] {
  const rows: Row[] = [];
  const n = r.n.toLocaleString("en-US");
  const d2 = r.days[1];
  const pass = d2 ? d2.times.forecast + d2.times.aggregate : NaN;
  const baseName = `bare kv.list of the ${n} market-location records (${r.base?.from ?? "—"})`;
  rows.push({
    part: PART,
    metric: `forecast + aggregate a day of ${n} locations (POST …/forecast + …/aggregate, warm)`,
    value: pass,
    unit: "s",
    baseline: baseName,
    baselineValue: r.base?.s,
    ratio: r.base ? pass / r.base.s : undefined,
    goal: `< 10 s${at1M(r.n)}`,
    met: pass < 10,
    note: d2
      ? `day ${d2.day}: forecast ${fmtS(d2.times.forecast)}, aggregate ${
        fmtS(d2.times.aggregate)
      }; ${r.customers} customer forecasts, ${r.n - r.customers} generated`
      : "not measured",
  });
  const peak = Math.max(num(r.peakRss), r.hwmReset ? num(r.hwm) : 0);
  rows.push({
    part: PART,
    metric: `peak RSS of the app process during that pass`,
    value: peak / MiB,
    unit: "MiB",
    baseline: "app RSS idle before the first day",
    baselineValue: r.rssIdle !== undefined ? r.rssIdle / MiB : undefined,
    ratio: r.rssIdle ? peak / r.rssIdle : undefined,
    goal: `< 1024 MiB${at1M(r.n)}`,
    met: peak < 1024 * MiB,
    note: `VmRSS sampled every 20 ms: max ${(num(r.peakRss) / MiB).toFixed(0)} MiB; VmHWM ${
      (num(r.hwm) / MiB).toFixed(0)
    } MiB (${r.hwmReset ? "reset before the pass" : "NOT reset: since the start, not counted"})`,
  });
  const small = r.smallN === r.n && d2
    ? {
      n: r.n,
      customers: r.customers,
      forecast: d2.times.forecast,
      aggregate: d2.times.aggregate,
      base: r.base,
    }
    : r.small;
  if (r.smallN > 0) {
    const s = small ? small.forecast + small.aggregate : NaN;
    rows.push({
      part: PART,
      metric: `forecast + aggregate a day of ${r.smallN.toLocaleString("en-US")} locations (warm)`,
      value: s,
      unit: "s",
      baseline: `bare kv.list of the ${r.smallN.toLocaleString("en-US")} records`,
      baselineValue: small?.base?.s,
      ratio: small?.base ? s / small.base.s : undefined,
      goal: `< 1 s${r.smallN === 100_000 ? "" : " (goal at 100,000)"}`,
      met: s < 1,
      note: small
        ? `forecast ${fmtS(small.forecast)}, aggregate ${
          fmtS(small.aggregate)
        }; ${small.customers} customer forecasts`
        : "not measured",
    });
  }
  const x = r.exact;
  rows.push({
    part: PART,
    metric:
      `open position vs exact per-location sum (kWh × shape, customer forecasts replacing), ` +
      `max |Δ| per quarter-hour`,
    value: num(x?.diff),
    unit: "MW",
    baseline: "largest |exact| quarter-hour value",
    baselineValue: x?.largest,
    ratio: x ? x.diff / x.largest : undefined,
    goal: "≤ 0.001 MW",
    met: x ? x.diff <= 0.001 : false,
    note: x
      ? `days ${x.days.join(", ")}, ${r.n} locations, ${x.replaced} customer forecasts; ` +
        `the profile-only sum (no replacement) is off by ${x.profileOnly.toFixed(3)} MW`
      : "not measured",
  });
  const reg = r.reg && r.bareReg
    ? { app: r.reg.counted / r.reg.s, bare: r.bareReg.counted / r.bareReg.s }
    : undefined;
  rows.push({
    part: PART,
    metric: `registration: PUT /v1/market-locations, ${n} in batches of 500, 4 clients`,
    value: num(reg?.app),
    unit: "locations/s",
    baseline: "bare parse+store (bench/servers/bare.ts store), same batches",
    baselineValue: reg?.bare,
    ratio: reg ? reg.app / reg.bare : undefined,
    goal: "≥ 0.5× bare",
    met: reg ? reg.app / reg.bare >= 0.5 : false,
    note: r.reg && r.bareReg
      ? `app ${fmtS(r.reg.s)}, bare ${fmtS(r.bareReg.s)} for ${r.reg.counted} locations ` +
        `(after ${r.reg.warmS.toFixed(2)} s / ${r.bareReg.warmS.toFixed(2)} s of warm-up batches)`
      : "not measured",
  });
  const idle = r.idle?.health.p99;
  const p99Row = (metric: string, s: Stats | undefined, note: string): Row => ({
    part: PART,
    metric,
    value: num(s?.p99),
    unit: "ms",
    baseline: "GET /health p99, idle app",
    baselineValue: idle,
    ratio: s && idle ? s.p99 / idle : undefined,
    goal: "< 50 ms",
    met: s ? s.p99 < 50 : false,
    note,
  });
  const ov = r.overview;
  rows.push(p99Row(
    `GET /v1/console/delivery-days, ${ov?.days ?? 7} days at ${n} locations, p99`,
    ov,
    ov
      ? `${ov.listed} days listed; p50 ${ov.p50.toFixed(2)} ms, max ${
        ov.max.toFixed(2)
      } ms, ${ov.n} sequential requests after 20 discarded`
      : "not measured",
  ));
  const b = r.busy;
  const during = `during ${n}-location forecast + aggregate passes`;
  const probeNote = (s: Stats | undefined) =>
    b && s
      ? `${s.n} open-loop requests over ${b.passes} passes (days 3–${r.days.length}, ${
        b.passS.toFixed(1)
      } s in all), p50 ${s.p50.toFixed(2)} ms, max ${
        s.max.toFixed(0)
      } ms; ${b.failures} failed (all probes)`
      : "not measured";
  rows.push(p99Row(`GET /health p99 ${during}`, b?.health, probeNote(b?.health)));
  rows.push(p99Row(`GET /v1/console/status p99 ${during}`, b?.status, probeNote(b?.status)));
  rows.push({
    part: PART,
    metric: `console live stream ${during}: longest silence`,
    value: num(b?.silenceMs),
    unit: "ms",
    baseline: "same watch on the idle app",
    baselineValue: r.idle?.silenceMs,
    ratio: b && r.idle ? b.silenceMs / r.idle.silenceMs : undefined,
    goal: `every event received, silence < ${SILENCE_GOAL_MS} ms`,
    met: b ? b.tickEvents >= b.ticks && b.silenceMs < SILENCE_GOAL_MS : false,
    note: b
      ? `${b.tickEvents}/${b.ticks} ticker events received (POST /v1/console/stop every ${TICK_MS} ms, ` +
        `p99 ${b.tickLatency.p99.toFixed(0)} ms), ${b.events} events in all`
      : "not measured",
  });
  const d1 = r.days[0];
  const e2e = d1 && r.reg
    ? r.reg.warmS + r.reg.s + Object.values(d1.times).reduce((a, v) => a + v, 0)
    : NaN;
  const bareE2e = r.bareReg && r.base ? r.bareReg.warmS + r.bareReg.s + r.base.s : undefined;
  rows.push({
    part: PART,
    metric: `end to end, ${n}-location day: registration → ${r.customers} customer forecasts → ` +
      `forecast → aggregate → publish → submit (files, ESS)`,
    value: e2e,
    unit: "s",
    baseline: "bare registration + bare kv.list",
    baselineValue: bareE2e,
    ratio: bareE2e ? e2e / bareE2e : undefined,
    goal: `< 30 s${at1M(r.n)}`,
    met: e2e < 30,
    note: d1 && r.reg
      ? `day ${d1.day}: registration ${fmtS(r.reg.warmS + r.reg.s)}, ` +
        Object.entries(d1.times).map(([k, v]) => `${k} ${fmtS(v)}`).join(", ")
      : "not measured",
  });
  const first = r.days[0]?.rss;
  const last = r.days[r.days.length - 1]?.rss;
  const all = r.days.length >= r.plannedDays;
  rows.push({
    part: PART,
    metric: `app RSS after day ${r.days.length} of ${r.plannedDays} (one process)`,
    value: num(last) / MiB,
    unit: "MiB",
    baseline: "app RSS after day 1",
    baselineValue: first !== undefined ? first / MiB : undefined,
    ratio: first ? last / first : undefined,
    goal: `≤ 1.10× after ${r.plannedDays} days`,
    met: all && first ? last / first <= 1.1 : false,
    note: `settled (12 s after days 1 and ${r.days.length}, 3 s after the others): ` +
      `${r.days.map((d) => (d.rss / MiB).toFixed(0)).join(" → ")} MiB; lowest in the first 3 s: ` +
      `${r.days.map((d) => (d.rssShort / MiB).toFixed(0)).join(" → ")} MiB; end-to-end seconds ` +
      `per day: ${
        r.days.map((d) => Object.values(d.times).reduce((a, v) => a + (v || 0), 0).toFixed(1))
          .join(", ")
      }${r.stoppedEarly ? `; STOPPED EARLY: ${r.stoppedEarly}` : ""}`,
  });
  for (const row of rows) {
    if (row.ratio !== undefined && !Number.isFinite(row.ratio)) delete row.ratio;
  }
  for (const f of r.failures ?? []) {
    rows.push({
      part: PART,
      metric: `FAILED or over limit: ${f.slice(0, 200)}`,
      value: NaN,
      unit: "",
    });
  }
  return rows;
}
