/**
 * `deno task backtest -- --history <csv> [--history <csv>…] --from YYYY-MM-DD --to YYYY-MM-DD
 * [--reference <csv>] [--out <csv>] [--json] [--chart <svg>]` (docs/forecasting.md, "The
 * backtest"): replays each Berlin day with the forecast made at its gate closure through the
 * service's model code (`lib/forecasting/`), prints MAE, rMAE, bias and imbalance energy of the
 * model beside the "7 days before" and "2 days before" baselines and the reference, on the same
 * quarter-hours.
 *
 * More flags: `--columns load=NAME,temp=NAME,radiation=NAME,windspeed_100m=NAME` (other column
 * names), `--radiation-unit J/m2|W/m2` (default J/m2 per hour, OpenSTEF's), `--latitude`,
 * `--longitude` (default 52.1, 5.2: the Netherlands, where OpenSTEF's location is),
 * `--holiday-region` (default NL), `--gate-closure HH:MM` (default 12:00), and the model's
 * `--window-days`, `--half-life-days` (a number or `none`), `--alpha`; for measuring:
 * `--without NAME,…` (leave features out, by name prefix) and `--days-before N` (forecast made N
 * days before delivery at the gate-closure time; default 1), `--lead-steps 1,2,3,8` (fit only these
 * leads, a day by the first ≥ its own, as the service does; default `none`: every lead its own).
 * Bad input is refused in words, exit code 2.
 * @module
 */
import { parseArgs } from "node:util";
import { parseDay } from "../lib/domain/delivery_day.ts";
import { chartSvg } from "../lib/forecasting/backtest/chart.ts";
import {
  BacktestInputError,
  type ColumnMap,
  HISTORY_COLUMNS,
  type HistoryColumn,
  joinHistories,
  parseHistory,
  parseReference,
  type RadiationUnit,
} from "../lib/forecasting/backtest/history_csv.ts";
import type { Figures } from "../lib/forecasting/backtest/metrics.ts";
import { type BacktestResult, replay } from "../lib/forecasting/backtest/replay.ts";
import { DEFAULT_OPTIONS, type ModelOptions } from "../lib/forecasting/forecast.ts";

const USAGE =
  "usage: deno task backtest -- --history <csv> [--history <csv>…] --from YYYY-MM-DD --to YYYY-MM-DD " +
  "[--reference <csv>] [--out <csv>] [--json] [--chart <svg>] [--columns load=NAME,…] " +
  "[--radiation-unit J/m2|W/m2] [--latitude DEG] [--longitude DEG] [--holiday-region NL] " +
  "[--gate-closure HH:MM] [--window-days N] [--half-life-days N|none] [--alpha X] [--without NAME,…] [--days-before N] " +
  "[--lead-steps N,N,…|none]";

/** Runs the backtest for `args`; returns the exit code (0 done, 2 refused). Output to `out`/`err`. */
export async function main(
  args: string[],
  out: (s: string) => void = (s) => console.log(s),
  err: (s: string) => void = (s) => console.error(s),
): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    out(USAGE);
    return 0;
  }
  try {
    const o = options(args);
    const histories = await Promise.all(o.history.map(async (name) => ({
      name,
      history: parseHistory(await read(name), name, o.columns, o.radiationUnit),
    })));
    const reference = o.reference ? parseReference(await read(o.reference), o.reference) : null;
    const result = replay(joinHistories(histories), reference, {
      from: o.from,
      to: o.to,
      gateClosureLocalTime: o.gateClosure,
      daysBefore: o.daysBefore,
      site: { latitude: o.latitude, longitude: o.longitude, holidayRegion: o.holidayRegion },
      model: o.model,
    });
    if (o.out) await write(o.out, forecastCsv(result));
    if (o.chart) {
      await write(
        o.chart,
        chartSvg(result.rows, `Backtest ${o.from} … ${o.to}: actual, forecast, reference (MW)`),
      );
    }
    out(o.json ? JSON.stringify(asJson(result, o), null, 2) : table(result, o));
    return 0;
  } catch (e) {
    const known = e instanceof BacktestInputError ||
      (e as { code?: string }).code?.startsWith("ERR_");
    if (!known) throw e;
    err(`backtest: ${(e as Error).message}`);
    return 2;
  }
}

interface Options {
  history: string[];
  from: string;
  to: string;
  reference?: string;
  out?: string;
  chart?: string;
  json: boolean;
  columns: ColumnMap;
  radiationUnit: RadiationUnit;
  latitude: number;
  longitude: number;
  holidayRegion: string;
  gateClosure: string;
  daysBefore: number;
  model: ModelOptions;
}

function options(args: string[]): Options {
  let v;
  try {
    v = parseArgs({
      // `deno task backtest -- …` passes the `--` on.
      args: args[0] === "--" ? args.slice(1) : args,
      strict: true,
      options: {
        history: { type: "string", multiple: true },
        from: { type: "string" },
        to: { type: "string" },
        reference: { type: "string" },
        out: { type: "string" },
        chart: { type: "string" },
        json: { type: "boolean", default: false },
        columns: { type: "string" },
        "radiation-unit": { type: "string", default: "J/m2" },
        latitude: { type: "string", default: "52.1" },
        longitude: { type: "string", default: "5.2" },
        "holiday-region": { type: "string", default: "NL" },
        "gate-closure": { type: "string", default: "12:00" },
        "window-days": { type: "string", default: String(DEFAULT_OPTIONS.windowDays) },
        "half-life-days": {
          type: "string",
          default: String(DEFAULT_OPTIONS.halfLifeDays ?? "none"),
        },
        alpha: { type: "string", default: String(DEFAULT_OPTIONS.alpha) },
        without: { type: "string", default: "" },
        "days-before": { type: "string", default: "1" },
        "lead-steps": { type: "string", default: "none" },
      },
    }).values;
  } catch (e) {
    throw new BacktestInputError(`${(e as Error).message}\n${USAGE}`);
  }
  if (!v.history?.length) throw new BacktestInputError(`--history is missing\n${USAGE}`);
  for (const f of ["from", "to"] as const) {
    if (!v[f]) throw new BacktestInputError(`--${f} is missing\n${USAGE}`);
    try {
      parseDay(v[f]);
    } catch {
      throw new BacktestInputError(`--${f} "${v[f]}" is not a date YYYY-MM-DD`);
    }
  }
  const unit = v["radiation-unit"];
  if (unit !== "J/m2" && unit !== "W/m2") {
    throw new BacktestInputError(`--radiation-unit "${unit}" is neither J/m2 (per hour) nor W/m2`);
  }
  if (!/^([01]\d|2[0-3]):[0-5]\d$/.test(v["gate-closure"])) {
    throw new BacktestInputError(`--gate-closure "${v["gate-closure"]}" is not a time HH:MM`);
  }
  return {
    history: v.history,
    from: v.from!,
    to: v.to!,
    reference: v.reference,
    out: v.out,
    chart: v.chart,
    json: v.json,
    columns: columnMap(v.columns),
    radiationUnit: unit,
    latitude: number(v.latitude, "--latitude", -90, 90),
    longitude: number(v.longitude, "--longitude", -180, 180),
    holidayRegion: v["holiday-region"],
    gateClosure: v["gate-closure"],
    model: {
      windowDays: number(v["window-days"], "--window-days", 14, 400, true),
      halfLifeDays: v["half-life-days"] === "none"
        ? null
        : number(v["half-life-days"], "--half-life-days", 0.5, 10_000),
      alpha: number(v.alpha, "--alpha", 0, 1e6),
      minDays: DEFAULT_OPTIONS.minDays,
      without: v.without.split(",").map((w) => w.trim()).filter(Boolean),
      leadSteps: leadSteps(v["lead-steps"]),
    },
    daysBefore: number(v["days-before"], "--days-before", 1, 14, true),
  };
}

function number(text: string, flag: string, lo: number, hi: number, integer = false): number {
  const n = Number(text);
  if (
    text.trim() === "" || !Number.isFinite(n) || n < lo || n > hi ||
    (integer && !Number.isInteger(n))
  ) {
    throw new BacktestInputError(
      `${flag} "${text}" is not ${integer ? "a whole number" : "a number"} from ${lo} to ${hi}`,
    );
  }
  return n;
}

function columnMap(text: string | undefined): ColumnMap {
  const map: ColumnMap = {};
  for (const pair of text ? text.split(",") : []) {
    const [key, name] = pair.split("=").map((s) => s.trim());
    if (!(HISTORY_COLUMNS as readonly string[]).includes(key) || !name) {
      throw new BacktestInputError(
        `--columns "${pair}" should be COLUMN=NAME with COLUMN one of ${
          HISTORY_COLUMNS.join(", ")
        }`,
      );
    }
    map[key as HistoryColumn] = name;
  }
  return map;
}

async function read(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    throw new BacktestInputError(`cannot read ${path}: ${(e as Error).message}`);
  }
}

async function write(path: string, text: string): Promise<void> {
  try {
    await Deno.writeTextFile(path, text);
  } catch (e) {
    throw new BacktestInputError(`cannot write ${path}: ${(e as Error).message}`);
  }
}

/** `start,forecast_mw` for every quarter-hour (empty where the model made none). */
function forecastCsv(r: BacktestResult): string {
  const lines = ["start,forecast_mw"];
  for (const row of r.rows) {
    lines.push(
      `${new Date(row.startMs).toISOString()},${
        Number.isFinite(row.forecast) ? row.forecast.toFixed(4) : ""
      }`,
    );
  }
  return lines.join("\n") + "\n";
}

function rowsOf(r: BacktestResult, o: Options): [string, Figures][] {
  const f = r.figures;
  return [
    ["learned forecast", f.model],
    ["7 days before", f.weekBefore],
    ["2 days before", f.twoDaysBefore],
    ...(f.reference ? [[`reference (${o.reference})`, f.reference] as [string, Figures]] : []),
  ];
}

function methods(r: BacktestResult): string {
  const count = new Map<string, number>();
  for (const d of r.days) count.set(d.method, (count.get(d.method) ?? 0) + 1);
  return [...count].map(([m, n]) => `${m} ${n} days`).join(", ");
}

function table(r: BacktestResult, o: Options): string {
  const f = r.figures;
  const head =
    `Backtest ${o.from} … ${o.to}: ${r.days.length} Berlin days, each forecast at ${o.gateClosure} Berlin ${
      o.daysBefore === 1 ? "the day before" : `${o.daysBefore} days before`
    }; ` +
    `${f.quarterHours} quarter-hours compared (P1 ${f.p1.toFixed(2)} MW, P99 ${
      f.p99.toFixed(2)
    } MW)`;
  const lines = [
    head,
    "",
    "| forecast | MAE (MW) | rMAE | bias (MW) | imbalance energy (MWh) |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const [name, x] of rowsOf(r, o)) {
    lines.push(
      `| ${name} | ${x.mae.toFixed(3)} | ${x.rmae.toFixed(3)} | ${x.bias >= 0 ? "+" : ""}${
        x.bias.toFixed(3)
      } | ${x.imbalanceMwh.toFixed(1)} |`,
    );
  }
  lines.push("", `Model ÷ 7 days before: ${(f.model.mae / f.weekBefore.mae).toFixed(3)}`);
  if (f.reference) lines.push(`Model ÷ reference: ${(f.model.mae / f.reference.mae).toFixed(3)}`);
  lines.push(`Methods: ${methods(r)}`);
  return lines.join("\n");
}

function asJson(r: BacktestResult, o: Options) {
  const f = r.figures;
  const fig = (x: Figures) => ({
    mae_mw: x.mae,
    rmae: x.rmae,
    bias_mw: x.bias,
    imbalance_mwh: x.imbalanceMwh,
  });
  return {
    from: o.from,
    to: o.to,
    gate_closure_local_time: o.gateClosure,
    days_before: o.daysBefore,
    model_options: o.model,
    quarter_hours: f.quarterHours,
    p1_mw: f.p1,
    p99_mw: f.p99,
    model: fig(f.model),
    seven_days_before: fig(f.weekBefore),
    two_days_before: fig(f.twoDaysBefore),
    reference: f.reference ? fig(f.reference) : null,
    days: r.days.map((d) => ({ day: d.day, method: d.method, reason: d.reason })),
  };
}

if (import.meta.main) Deno.exit(await main(Deno.args));

/** `--lead-steps`: `none`, or ascending whole days 1…60 separated by commas (e.g. `1,2,3,8`). */
function leadSteps(v: string): number[] | null {
  if (v === "none") return null;
  const steps = v.split(",").map((x) => Number(x.trim()));
  if (
    !steps.every((n, i) =>
      Number.isInteger(n) && n >= 1 && n <= 60 && (i === 0 || n > steps[i - 1])
    )
  ) {
    throw new BacktestInputError(
      `--lead-steps "${v}" is not "none" nor ascending whole days 1…60 separated by commas`,
    );
  }
  return steps;
}
