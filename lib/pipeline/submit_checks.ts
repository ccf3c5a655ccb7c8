/**
 * What a submission needs before anything is claimed or sent (docs/pipeline.md, "Submit"): the
 * parties configured, an aggregate, and enough market locations with a forecast. Shared by both
 * channels of `./submit.ts`.
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
import { CoverageTooLow, NotAggregated, NotConfigured } from "../domain/errors.ts";
import { type Aggregate, forecastCoverage, readAggregate } from "./aggregate.ts";

/**
 * The latest aggregate of `day` when it may be submitted: it exists and enough market locations
 * have a forecast (`min_forecast_coverage`, docs/pipeline.md).
 * @param done what did not happen, for the refusal ("nothing was submitted")
 * @throws {NotAggregated} before the first aggregate
 * @throws {CoverageTooLow} naming the share and the locations without a forecast
 */
export async function submittableAggregate(
  kv: Deno.Kv,
  day: string,
  cfg: EffectiveConfig,
  done: "submitted" | "handed over",
): Promise<Aggregate> {
  const agg = await readAggregate(kv, day);
  if (!agg) throw new NotAggregated(day, "submit");
  const coverage = forecastCoverage(agg.counts);
  if (coverage.share < cfg.min_forecast_coverage) {
    throw new CoverageTooLow(
      `Only ${coverage.with} of ${coverage.of} market locations of ${day} have a forecast (${
        (coverage.share * 100).toFixed(1)
      } %, below min_forecast_coverage ${
        cfg.min_forecast_coverage * 100
      } %): ${coverage.missing} without one; nothing was ${done}.`,
    );
  }
  return agg;
}

/**
 * The parties a schedule needs are configured: the balancing group and the sender EIC, and for a
 * document (ESS, CIM) the counterparty EIC.
 * @param done what did not happen, for the refusal ("nothing was submitted")
 * @throws {NotConfigured} `ERR_SCHEDULE_PARTIES_MISSING` naming each missing field
 */
export function assertParties(cfg: EffectiveConfig, document: boolean, done: string): void {
  const fields = document
    ? ["balancing_group", "sender_eic", "counterparty_eic"] as const
    : ["balancing_group", "sender_eic"] as const;
  const missing = fields.filter((f) => !cfg[f]);
  if (!missing.length) return;
  throw new NotConfigured(
    "ERR_SCHEDULE_PARTIES_MISSING",
    `A schedule${
      document
        ? " document needs the balancing group, the sender EIC and the counterparty EIC"
        : " needs the balancing group and the sender EIC"
    }; ${missing.join(" and ")} ${missing.length === 1 ? "is" : "are"} not configured; ${done}.`,
  );
}
