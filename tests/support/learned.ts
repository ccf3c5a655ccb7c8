/**
 * A store holding one metered market location with the OpenSTEF history (data/openstef) as its
 * actuals and its weather point's weather, each delivered as the backtest assumes (actuals at
 * 06:00 Berlin of the next day, weather at 06:00 Berlin of the day before; dev/learned_history.ts),
 * for the tests of the learned forecasts in the service.
 * @module
 */
import { seedHistory } from "../../dev/learned_history.ts";
import { maloCheckDigit } from "../../lib/domain/malo.ts";
import type { History } from "../../lib/forecasting/backtest/history_csv.ts";
import { putMarketLocation } from "../../lib/pipeline/market_locations.ts";
import type { MarketLocation } from "../../lib/pipeline/market_location_record.ts";
import { openstefHistory } from "./openstef.ts";

/** A valid MaLo-ID from a 10-digit start. */
export const maloOf = (first10: string) => `${first10}${maloCheckDigit(first10)}`;

/** The learned location: consumption in Amprion, its point at the set's site, NRW's holidays. */
export const LEARNED_MALO = maloOf("5100000001");
export const POINT = "52.10,5.20";
export const AREA = "10YDE-RWENET---I";

/** The site the backtest must be given to read the history as the service does. */
export const SITE = { latitude: 52.1, longitude: 5.2, holidayRegion: "DE-NW" };

/** The OpenSTEF history in kW (its MW × 1000): the service's unit. */
export function historyKw(): History {
  const h = openstefHistory();
  return { ...h, load: h.load.map((v) => v * 1000) };
}

/**
 * Registers the location (`fields` added) and stores the history's actuals of `firstDay` …
 * `lastDay` and weather up to `weatherLastDay`, each at its delivery instant.
 */
export async function seedLearned(
  kv: Deno.Kv,
  opts: {
    firstDay: string;
    lastDay: string;
    weatherLastDay?: string;
    maloId?: string;
    /** The weather point (default {@link POINT}); its weather is stored as the history's. */
    point?: string;
    fields?: Partial<MarketLocation>;
    registeredAtMs?: number;
  },
): Promise<void> {
  const maloId = opts.maloId ?? LEARNED_MALO;
  await putMarketLocation(
    kv,
    maloId,
    {
      control_area: AREA,
      direction: "consumption",
      weather_point: opts.point ?? POINT,
      holiday_region: "DE-NW",
      name: "OpenSTEF 307",
      ...opts.fields,
    },
    opts.registeredAtMs ?? Date.parse("2020-08-01T00:00:00Z"),
  );
  await seedHistory(kv, {
    maloId,
    point: opts.point ?? POINT,
    history: historyKw(),
    firstDay: opts.firstDay,
    lastDay: opts.lastDay,
    weatherLastDay: opts.weatherLastDay,
  });
}
