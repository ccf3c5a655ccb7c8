/**
 * Imports settlement inputs (docs/settlement.md, "Actuals", "Imbalance prices"): parse, check every
 * market location is registered here, then store, and record one event. All or nothing: any
 * problem refuses the whole input with {@link SettlementInputRefused} before anything is stored.
 * Used by `POST /v1/actuals`, `POST /v1/imbalance-prices` and the inbox (`./inbox.ts`).
 * @module
 */
import type { ServiceContext } from "../context.ts";
import { eicProblem } from "../domain/eic.ts";
import { registeredMarketLocations } from "../pipeline/market_locations.ts";
import { actualsFromCsv, actualsFromJson } from "./actuals_input.ts";
import { storeActuals, type StoreOutcome } from "./actuals_store.ts";
import { IssueList } from "./errors.ts";
import { parseMscons } from "./mscons.ts";
import { readMscons } from "./mscons_parallel.ts";
import { type PriceOutcome, storePrices } from "./prices_store.ts";
import { parseRebap } from "./rebap.ts";
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

/** What an import of prices did. */
export interface PricesImport extends PriceOutcome {
  quarter_hours: number;
  message: string;
}

type Deps = Pick<ServiceContext, "kv" | "clock" | "events">;

/**
 * Imports actuals.
 * @param body MSCONS as the bytes that arrived (decoded in the character set its `UNB` names) or
 *   as text already decoded, CSV as text, JSON as the parsed value
 * @param source names the input in the stored records and the event (e.g. a file name)
 * @throws {SettlementInputRefused} nothing stored
 */
export async function importActuals(
  deps: Deps,
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
  await checkOwners(deps.kv, series);
  const stored = await storeActuals(deps.kv, series, `${source} (${by})`, deps.clock.now());
  const malos = new Set<string>(), sums = new Set<string>();
  for (const s of series) {
    if (s.owner.kind === "market_location") malos.add(s.owner.malo_id);
    else sums.add(`${s.owner.balancing_group}/${s.owner.balancing_area}`);
  }
  const what = [
    malos.size ? `${malos.size} market location${malos.size === 1 ? "" : "s"}` : "",
    sums.size ? `${sums.size} balancing-group sum${sums.size === 1 ? "" : "s"}` : "",
  ].filter(Boolean).join(" and ");
  const message = `${by} sent actuals (${format}) for ${what}, ${stored.days.length} day${
    stored.days.length === 1 ? "" : "s"
  } (${stored.days[0]}${
    stored.days.length > 1 ? ` to ${stored.days.at(-1)}` : ""
  }): ${stored.added} new quarter-hour values, ${stored.replaced} replaced earlier ones, ${stored.unchanged} unchanged.`;
  await deps.events.append({
    kind: "actuals_received",
    level: stored.replaced ? "warning" : "info",
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
 * Imports a reBAP file.
 * @throws {SettlementInputRefused} nothing stored
 */
export async function importPrices(
  deps: Deps,
  text: string,
  by: string,
  source: string,
): Promise<PricesImport> {
  const points = parseRebap(text);
  const stored = await storePrices(deps.kv, points, `${source} (${by})`, deps.clock.now());
  const message = `${by} sent reBAP prices for ${points.length} quarter-hours (${stored.days[0]}${
    stored.days.length > 1 ? ` to ${stored.days.at(-1)}` : ""
  }): ${stored.added} new, ${stored.replaced} replaced earlier prices, ${stored.unchanged} unchanged, ${stored.unknown} not known yet (N.A.).`;
  await deps.events.append({
    kind: "imbalance_prices_received",
    level: stored.replaced ? "warning" : "info",
    message,
    caller: by,
    data: { source, ...stored },
  });
  return { ...stored, quarter_hours: points.length, message };
}

/** Every market location must be registered; balancing group and area must be valid EICs. */
async function checkOwners(kv: Deno.Kv, series: readonly MeteredSeries[]): Promise<void> {
  const issues = new IssueList();
  const ids = [
    ...new Set(series.flatMap((s) => s.owner.kind === "market_location" ? [s.owner.malo_id] : [])),
  ];
  const known = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const id of await registeredMarketLocations(kv, ids.slice(i, i + 500))) known.add(id);
  }
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
