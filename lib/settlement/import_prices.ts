/**
 * Imports a price file (docs/settlement.md, "Imbalance prices"): the reBAP in either layout, the
 * TSOs' AEP estimate, or ID AEP (`./price_files.ts`); and the BRP's own intraday trades
 * (`./intraday_trades.ts`). All or nothing: a refused file stores nothing. One event says what was stored; where a reBAP replaced the AEP estimate of a day that
 * has settlement inputs, one more event per day says how its imbalance cost and status changed
 * (`settlement_repriced`): an operator who read yesterday's estimated cost learns it was replaced.
 * Used by `POST /v1/imbalance-prices` and the inbox (`./inbox.ts`).
 * @module
 */
import type { ImportDeps } from "./import.ts";
import { storeIdAep } from "./id_aep_store.ts";
import { PRICE_KIND, type PriceLayout, readPriceFile } from "./price_files.ts";
import { type PriceOutcome, pricesOfDay, priceSources, storePrices } from "./prices_store.ts";
import { pointsByDay } from "./day_split.ts";
import { settleDay } from "./settle_day.ts";
import { parseTrades, storeTrades, type TradesOutcome } from "./intraday_trades.ts";

/** What an import of prices did (the answer of `POST /v1/imbalance-prices`). */
export interface PricesImport extends PriceOutcome {
  /** The file's layout. */
  layout: PriceLayout;
  /** What its prices are: the reBAP, the AEP estimate, or the intraday index ID AEP. */
  price_kind: "rebap" | "aep_estimate" | "id_aep";
  quarter_hours: number;
  message: string;
}

const WHAT: Record<PricesImport["price_kind"], string> = {
  rebap: "reBAP prices",
  aep_estimate: "the AEP estimate (operational imbalance price)",
  id_aep: "ID AEP (intraday index price)",
};

/** A day's cost and status before the reBAP came, for the repricing event. */
interface Before {
  cost: number;
  status: string;
}

/**
 * Imports a price file.
 * @throws {import("./errors.ts").SettlementInputRefused} nothing stored
 */
export async function importPrices(
  deps: ImportDeps,
  text: string,
  by: string,
  source: string,
): Promise<PricesImport> {
  const { layout, points } = readPriceFile(text);
  const kind = PRICE_KIND[layout];
  const at = `${source} (${by})`;
  const now = deps.clock.now();
  const before = kind === "rebap" ? await estimatedDays(deps, points, now) : new Map();
  const stored = kind === "id_aep"
    ? await storeIdAep(deps.kv, points, at, now)
    : await storePrices(deps.kv, points, kind, at, now);
  const days = stored.days;
  const range = `${days[0]}${days.length > 1 ? ` to ${days.at(-1)}` : ""}`;
  const parts = [
    `${stored.added} new`,
    `${stored.replaced} replaced earlier prices`,
    `${stored.unchanged} unchanged`,
    `${stored.unknown} not known (N.A.)`,
  ];
  if (kind === "rebap" && stored.replaced_estimates) {
    parts.push(`the reBAP replaced the AEP estimate in ${stored.replaced_estimates}`);
  }
  if (kind === "aep_estimate") {
    parts.push(`${stored.kept_rebap} not used because their reBAP is known`);
  }
  const message = `${by} sent ${WHAT[kind]} for ${points.length} quarter-hours (${range}): ${
    parts.join(", ")
  }.${
    kind === "aep_estimate"
      ? " Costs priced by it are estimated until the reBAP is published after quality assurance."
      : ""
  }`;
  await deps.events.append({
    kind: kind === "id_aep" ? "intraday_prices_received" : "imbalance_prices_received",
    level: stored.replaced ? "warning" : "info",
    message,
    caller: by,
    data: { source, layout, ...stored },
  });
  for (const r of stored.repriced) {
    const was = before.get(r.day);
    if (was) await repricedEvent(deps, r.day, r.quarter_hours, was, by, now);
  }
  return { ...stored, layout, price_kind: kind, quarter_hours: points.length, message };
}

/**
 * The days of `points` whose stored prices hold an estimate and that have settlement inputs, with
 * their cost and status now (before the reBAP is stored).
 */
async function estimatedDays(
  deps: ImportDeps,
  points: readonly { start: number }[],
  now: number,
): Promise<Map<string, Before>> {
  const out = new Map<string, Before>();
  for (const [day] of pointsByDay(points)) {
    const p = await pricesOfDay(deps.kv, day);
    if (!p || !priceSources(p).includes("aep_estimate")) continue;
    const d = await settleDay(deps.kv, await deps.config.snapshot(), day, now);
    if (d.any_input) out.set(day, { cost: d.totals.cost_eur, status: d.status });
  }
  return out;
}

/** One event: the day's cost and status after the reBAP replaced its estimate. */
async function repricedEvent(
  deps: ImportDeps,
  day: string,
  quarterHours: number,
  was: Before,
  by: string,
  now: number,
): Promise<void> {
  const d = await settleDay(deps.kv, await deps.config.snapshot(), day, now);
  const eur = (x: number) => `${x.toFixed(2)} EUR`;
  const status = d.status === was.status
    ? `still ${d.status}`
    : `now ${d.status} (was ${was.status})`;
  await deps.events.append({
    kind: "settlement_repriced",
    level: "info",
    message: `${day}: the reBAP replaced the AEP estimate in ${quarterHours} quarter-hour${
      quarterHours === 1 ? "" : "s"
    }; the imbalance cost is ${eur(d.totals.cost_eur)} (on the estimate: ${
      eur(was.cost)
    }); the day is ${status}.`,
    caller: by,
    delivery_day: day,
    data: {
      quarter_hours: quarterHours,
      cost_eur: d.totals.cost_eur,
      estimated_cost_eur: was.cost,
      status: d.status,
      previous_status: was.status,
    },
  });
}

/** What an import of intraday trades did (the answer of `POST /v1/intraday-trades`). */
export interface TradesImport extends TradesOutcome {
  message: string;
}

/**
 * Imports the BRP's own intraday trades (`./intraday_trades.ts`): each day and area in the file
 * replaces the trades stored for it.
 * @throws {import("./errors.ts").SettlementInputRefused} nothing stored
 */
export async function importTrades(
  deps: ImportDeps,
  text: string,
  by: string,
  source: string,
): Promise<TradesImport> {
  const trades = parseTrades(text);
  const stored = await storeTrades(deps.kv, trades, `${source} (${by})`, deps.clock.now());
  const days = [...new Set(stored.days.map((d) => d.split(" ")[0]))];
  const message = `${by} sent ${trades.length} intraday trade${
    trades.length === 1 ? "" : "s"
  } for ${stored.days.length} day${stored.days.length === 1 ? "" : "s"} and area${
    stored.days.length === 1 ? "" : "s"
  } (${days[0]}${
    days.length > 1 ? ` to ${days.at(-1)}` : ""
  }); they replace the trades stored for those and price the intraday energy there instead of ID AEP.`;
  await deps.events.append({
    kind: "intraday_trades_received",
    level: "info",
    message,
    caller: by,
    delivery_day: days.length === 1 ? days[0] : undefined,
    data: { source, ...stored },
  });
  return { ...stored, message };
}
