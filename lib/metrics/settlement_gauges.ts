/**
 * Gauges of the settlement after delivery (docs/metrics.md, "Settlement"; docs/settlement.md):
 * yesterday's (Europe/Berlin date of the clock) imbalance cost, imbalance energy and completeness
 * per control area, from `GET /v1/delivery-days/{day}/settlement`'s computation. Computed at most
 * once per {@link SETTLEMENT_METRICS_TTL_MS} per process (a scrape every 15 s must not read a day
 * of 100,000 metered locations each time); absent while yesterday has no settlement input.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import { addDays, localDayOf } from "../domain/delivery_day.ts";
import { settleDay } from "../settlement/settle_day.ts";
import type { DaySettlement } from "../wire/settlement.ts";
import { Gauge, METRIC_PREFIX, type Registry } from "./registry.ts";

/** How long one computation serves the scrapes, ms. */
export const SETTLEMENT_METRICS_TTL_MS = 60_000;

/** Joules in one MWh (base unit of energy gauges). */
const J_PER_MWH = 3.6e9;

/** What the gauges read. */
export interface SettlementSources {
  kv: Deno.Kv;
  clock: Clock;
  config(): Promise<EffectiveConfig>;
  /** Told when the settlement could not be computed (the gauges are then left out). */
  onError?(err: unknown): void;
}

/** Registers the settlement gauges on `registry`. */
export function registerSettlementGauges(registry: Registry, src: SettlementSources): void {
  let cached: { at: number; day: string; value: Promise<DaySettlement | null> } | undefined;
  const yesterday = (): Promise<DaySettlement | null> => {
    const now = src.clock.now();
    const day = addDays(localDayOf(now), -1);
    if (!cached || cached.day !== day || now - cached.at >= SETTLEMENT_METRICS_TTL_MS) {
      const value = (async () => {
        const s = await settleDay(src.kv, await src.config(), day, now);
        return s.any_input ? s : null;
      })();
      value.catch((err) => {
        cached = undefined;
        src.onError?.(err);
      });
      cached = { at: now, day, value };
    }
    return cached.value.catch(() => null);
  };
  const gauge = (
    name: string,
    help: string,
    labelNames: string[],
    fill: (g: Gauge, s: DaySettlement) => void,
  ) =>
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        const s = await yesterday();
        if (s) fill(this, s);
      },
    });
  gauge(
    "imbalance_cost_eur",
    "Yesterday's imbalance cost per control area at the reBAP price, EUR (> 0: the BRP pays); known quarter-hours only",
    ["control_area", "status"],
    (g, s) => {
      for (const a of s.areas) {
        g.set({ control_area: a.control_area, status: a.completeness.status }, a.totals.cost_eur);
      }
    },
  );
  gauge(
    "imbalance_energy_joules",
    "Yesterday's imbalance energy per control area and direction (short, long), joules (/ 3.6e9 = MWh)",
    ["control_area", "direction"],
    (g, s) => {
      for (const a of s.areas) {
        g.set({ control_area: a.control_area, direction: "short" }, a.totals.short_mwh * J_PER_MWH);
        g.set({ control_area: a.control_area, direction: "long" }, a.totals.long_mwh * J_PER_MWH);
      }
    },
  );
  gauge(
    "settlement_locations",
    "Yesterday's market locations per control area: metered, profile_settled, missing",
    ["control_area", "state"],
    (g, s) => {
      for (const a of s.areas) {
        for (const state of ["metered", "profile_settled", "missing"] as const) {
          g.set({ control_area: a.control_area, state }, a.completeness[state]);
        }
      }
    },
  );
  gauge(
    "settlement_priced_ratio",
    "Yesterday's share of quarter-hours with a reBAP price, 0..1",
    [],
    (g, s) => {
      const a = s.areas[0];
      if (a) g.set(a.completeness.priced_quarter_hours / a.completeness.quarter_hours);
    },
  );
  gauge(
    "settlement_final",
    "1 when yesterday's settlement of the control area is final (every location and price known), else 0",
    ["control_area"],
    (g, s) => {
      for (const a of s.areas) {
        g.set({ control_area: a.control_area }, a.completeness.status === "final" ? 1 : 0);
      }
    },
  );
}
