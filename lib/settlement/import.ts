/**
 * Imports actuals (docs/actuals.md): parse, check every market location is
 * registered here and every MaBiS metering point mapped, then store, and record one event. All or
 * nothing: any problem refuses the whole input with {@link SettlementInputRefused} before anything
 * is stored. Used by `POST /v1/actuals` and the inbox (`./inbox.ts`); prices: `./import_prices.ts`.
 * @module
 */
import type { ServiceContext } from "../context.ts";
import { eicProblem } from "../domain/eic.ts";
import { registeredMarketLocations } from "../pipeline/market_locations.ts";
import { markLearnedInputs } from "../pipeline/learned_staleness.ts";
import { actualsFromCsv, actualsFromJson } from "./actuals_input.ts";
import { storeActuals, type StoreOutcome } from "./actuals_store.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import { meteringPointMap } from "../config/mabis_points.ts";
import { balancingAreaMap } from "../config/balancing_areas.ts";
import { noteSums } from "./clearing_marks.ts";
import { runsByDay } from "./day_split.ts";
import { IssueList } from "./errors.ts";
import { parseMscons } from "./mscons.ts";
import { readMscons } from "./mscons_parallel.ts";
import type { MeteredSeries } from "./series.ts";

/** The formats actuals arrive in. */
export type ActualsFormat = "mscons" | "csv" | "json";

/** What an import of actuals did (the answer of `POST /v1/actuals`). */
export interface ActualsImport extends StoreOutcome {
  format: ActualsFormat;
  market_locations: number;
  balancing_group_sums: number;
  /** One sentence: what was stored, and what replaced earlier values. */
  message: string;
}

/** What an import uses. */
export type ImportDeps = Pick<ServiceContext, "kv" | "clock" | "events" | "config">;

/**
 * Imports actuals.
 * @param body MSCONS as the bytes that arrived (decoded in the character set its `UNB` names) or
 *   as text already decoded, CSV as text, JSON as the parsed value
 * @param source names the input in the stored records and the event (e.g. a file name)
 * @throws {SettlementInputRefused} nothing stored
 */
export async function importActuals(
  deps: ImportDeps,
  format: ActualsFormat,
  body: unknown,
  by: string,
  source: string,
): Promise<ActualsImport> {
  const series = format === "mscons"
    ? (body instanceof Uint8Array ? await readMscons(body) : parseMscons(String(body))).series
    : format === "csv"
    ? actualsFromCsv(String(body))
    : actualsFromJson(body);
  const cfg = await deps.config.snapshot();
  await checkOwners(deps.kv, cfg, series);
  const stored = await storeActuals(deps.kv, series, `${source} (${by})`, deps.clock.now());
  // Sums put their month's clearing lists before the operator again (docs/settlement.md).
  await noteSums(deps.kv, sumMonths(cfg, series), new Date(deps.clock.now()).toISOString());
  const malos = new Set<string>(), sums = new Set<string>();
  for (const s of series) {
    const o = s.owner;
    if (o.kind === "market_location") malos.add(o.malo_id);
    else if (o.kind === "metering_point_sum") sums.add(o.metering_point);
    else sums.add(`${o.balancing_group}/${o.balancing_area}`);
  }
  if (malos.size && (stored.added || stored.replaced)) {
    // The learned forecasts read them: their days turn stale (docs/pipeline.md).
    await markLearnedInputs(deps.kv, { source: "actuals", market_locations: malos.size }, {
      nowMs: deps.clock.now(),
      by,
    });
  }
  const message = actualsSentence(by, format, malos.size, sums.size, stored);
  await deps.events.append({
    kind: "actuals_received",
    level: stored.replaced || stored.older_versions.length ? "warning" : "info",
    message,
    caller: by,
    delivery_day: stored.days.length === 1 ? stored.days[0] : undefined,
    data: { format, source, ...stored },
  });
  return {
    ...stored,
    format,
    market_locations: malos.size,
    balancing_group_sums: sums.size,
    message,
  };
}

/**
 * Every market location must be registered; a metering-point sum's point must be mapped
 * (`mabis_metering_points`); a balancing group and area must be valid EICs.
 */
async function checkOwners(
  kv: Deno.Kv,
  cfg: Readonly<EffectiveConfig>,
  series: readonly MeteredSeries[],
): Promise<void> {
  const issues = new IssueList();
  const ids = [
    ...new Set(series.flatMap((s) => s.owner.kind === "market_location" ? [s.owner.malo_id] : [])),
  ];
  const known = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const id of await registeredMarketLocations(kv, ids.slice(i, i + 500))) known.add(id);
  }
  const points = meteringPointMap(cfg.mabis_metering_points ?? []);
  const told = new Set<string>();
  for (const s of series) {
    const o = s.owner;
    if (o.kind === "market_location") {
      if (known.has(o.malo_id) || told.has(o.malo_id)) continue;
      told.add(o.malo_id);
      issues.add(
        ["body", s.where],
        `${s.where}: market location ${o.malo_id} is not registered here (register it with PUT /v1/market-locations/${o.malo_id} first)`,
        "value_error.unknown_location",
        o.malo_id,
      );
    } else if (o.kind === "metering_point_sum") {
      if (points.has(o.metering_point) || told.has(o.metering_point)) continue;
      told.add(o.metering_point);
      issues.add(
        ["body", s.where],
        `${s.where}: MaBiS metering point ${o.metering_point} is not mapped to a control area and balancing group here (add ${o.metering_point}=<control-area EIC>/<balancing-group EIC> to the runtime field mabis_metering_points first)`,
        "value_error.unknown_location",
        o.metering_point,
      );
    } else {
      for (
        const [what, eic] of [["balancing group", o.balancing_group], [
          "balancing area",
          o.balancing_area,
        ]]
      ) {
        const p = eicProblem(eic);
        if (p) {
          issues.add(
            ["body", s.where],
            `${s.where}: ${what} ${eic} is not a valid EIC (${p})`,
            "value_error.mscons",
            eic,
          );
        }
      }
    }
  }
  issues.throwIfAny();
}

/** The months (`YYYY-MM`) of the sums in `series`, with the control areas they are mapped to. */
function sumMonths(
  cfg: Readonly<EffectiveConfig>,
  series: readonly MeteredSeries[],
): Map<string, Set<string>> {
  const points = meteringPointMap(cfg.mabis_metering_points ?? []);
  const areas = balancingAreaMap(cfg.balancing_areas ?? []);
  const out = new Map<string, Set<string>>();
  for (const s of series) {
    const o = s.owner;
    const area = o.kind === "metering_point_sum"
      ? points.get(o.metering_point)?.control_area
      : o.kind === "balancing_group_sum"
      ? areas[o.balancing_area]
      : undefined;
    if (!area) continue;
    for (const r of runsByDay(s.start, s.kwh)) {
      const month = r.day.slice(0, 7);
      out.set(month, (out.get(month) ?? new Set()).add(area));
    }
  }
  return out;
}

/** The one sentence of an actuals import: what was stored, replaced, kept, flagged. */
function actualsSentence(
  by: string,
  format: ActualsFormat,
  malos: number,
  sums: number,
  stored: StoreOutcome,
): string {
  const n = (k: number, one: string, many = `${one}s`) => `${k} ${k === 1 ? one : many}`;
  const what = [
    malos ? n(malos, "market location") : "",
    sums ? n(sums, "balancing-group sum") : "",
  ].filter(Boolean).join(" and ");
  const days = stored.days;
  const range = days.length ? ` (${days[0]}${days.length > 1 ? ` to ${days.at(-1)}` : ""})` : "";
  const flags = [
    stored.substitutes ? n(stored.substitutes, "substitute value") : "",
    stored.provisional ? n(stored.provisional, "provisional value") : "",
    stored.missing ? n(stored.missing, "value reported missing", "values reported missing") : "",
  ].filter(Boolean);
  const older = stored.older_versions.length
    ? ` Not applied, older than what is stored: ${
      stored.older_versions.slice(0, 3).map((o) =>
        `${o.location} ${o.day} (${
          o.version ? `version ${o.version}` : "a daily sum"
        }; stored version ${o.stored})`
      ).join(", ")
    }${stored.older_versions.length > 3 ? " …" : ""}.`
    : "";
  return `${by} sent actuals (${format}) for ${what}, ${
    n(days.length, "day")
  }${range}: ${stored.added} new quarter-hour values, ${stored.replaced} replaced earlier ones, ${stored.unchanged} unchanged${
    flags.length ? `; among them ${flags.join(", ")}` : ""
  }.${older}`;
}
