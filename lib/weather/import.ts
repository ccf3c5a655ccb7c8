/**
 * Takes a weather delivery in (docs/weather.md): read (CSV or an Open-Meteo answer), check every
 * value and gap, turn hours into quarter-hours, store it with the instant it was received (the
 * service clock's now), note the points, and record one `weather_received` event. All or nothing:
 * any problem refuses the whole delivery with {@link WeatherInputRefused} before anything is
 * stored. Used by `POST /v1/weather` and the weather inbox (`./inbox.ts`).
 * @module
 */
import type { ServiceContext } from "../context.ts";
import { weatherFromCsv } from "./csv.ts";
import { weatherFromOpenMeteo } from "./open_meteo.ts";
import { recordDeliveries } from "./points.ts";
import { markLearnedInputs } from "../pipeline/learned_staleness.ts";
import { WeatherIssues } from "./refusal.ts";
import {
  checkDelivery,
  HOUR_MS,
  type PointDelivery,
  QH_MS,
  type QuarterHourSeries,
  toQuarterHours,
  VARIABLES,
} from "./samples.ts";
import { type StoreOutcome, storeWeather } from "./store.ts";

export { WeatherInputRefused } from "./refusal.ts";

/** The formats weather arrives in. */
export type WeatherFormat = "csv" | "open_meteo";

/** One point of a delivery, as answered. */
export interface DeliveredPoint {
  point_id: string;
  resolution: "hourly" | "quarter-hourly";
  /** ISO-8601 UTC: start of the first and end of the last quarter-hour with a value. */
  from: string;
  to: string;
  /** Quarter-hours with at least one value. */
  quarter_hours: number;
}

/** What an import did (the answer of `POST /v1/weather`). */
export interface WeatherImport extends Omit<StoreOutcome, "changed_points"> {
  format: WeatherFormat;
  /** ISO-8601 UTC instant the delivery was received: its values are known from then on. */
  received_at: string;
  points: DeliveredPoint[];
  /** One sentence saying all of it. */
  message: string;
}

type Deps = Pick<ServiceContext, "kv" | "clock" | "events">;

const LABEL: Record<WeatherFormat, string> = { csv: "CSV", open_meteo: "Open-Meteo" };

/**
 * Imports one delivery.
 * @param body CSV as text, an Open-Meteo answer as the parsed JSON value
 * @param source names the input in the stored versions and the event (`POST /v1/weather`,
 *   `file x.csv`)
 * @throws {WeatherInputRefused} nothing stored
 * @throws {import("../store/kv.ts").KvContentionError} the store stayed contended (see
 *   `storeWeather`)
 */
export async function importWeather(
  deps: Deps,
  format: WeatherFormat,
  body: unknown,
  by: string,
  source: string,
): Promise<WeatherImport> {
  const deliveries = format === "csv" ? weatherFromCsv(String(body)) : weatherFromOpenMeteo(body);
  checkAll(deliveries);
  const series = deliveries.map(toQuarterHours);
  const receivedMs = deps.clock.now();
  const received_at = new Date(receivedMs).toISOString();
  const { changed_points: changedPoints, ...stored } = await storeWeather(
    deps.kv,
    series,
    receivedMs,
    `${LABEL[format]}, ${source} (${by})`,
  );
  const points = deliveries.map((d, k) => delivered(d, series[k]));
  await recordDeliveries(
    deps.kv,
    points.map((p) => ({
      point: p.point_id,
      fromMs: Date.parse(p.from),
      toMs: Date.parse(p.to),
      changed: changedPoints.includes(p.point_id),
    })),
    receivedMs,
    `${LABEL[format]}, ${source} (${by})`,
  );
  if (changedPoints.length) {
    // The learned forecasts of the points with anything new read it: their days turn stale
    // (docs/pipeline.md, "Day state and staleness").
    await markLearnedInputs(deps.kv, { source: "weather", points: changedPoints }, {
      nowMs: receivedMs,
      by,
    });
  }
  const message = sentence(by, format, points, received_at, stored);
  await deps.events.append({
    kind: "weather_received",
    level: "info",
    message,
    caller: by,
    // At most 20 points, and the days as a range: a CSV of a thousand points or of years of
    // history would outgrow a KV value (64 KiB).
    data: {
      format,
      source,
      received_at,
      point_count: points.length,
      points: points.slice(0, 20),
      added: stored.added,
      changed: stored.changed,
      unchanged: stored.unchanged,
      versions: stored.versions,
      first_day: stored.days[0],
      last_day: stored.days.at(-1),
    },
  });
  return { ...stored, format, received_at, points, message };
}

/** Values, gaps, empty deliveries and a point given twice, all at once. */
function checkAll(deliveries: PointDelivery[]): void {
  const issues = new WeatherIssues();
  const seen = new Map<string, PointDelivery>();
  for (const d of deliveries) {
    const twin = seen.get(d.point);
    if (twin) {
      issues.add(
        d.samples[0]?.loc("temperature_c").slice(0, 2) ?? ["body"],
        `point ${d.point} appears twice in this delivery (${twin.samples[0]?.where} and ${
          d.samples[0]?.where
        }): two answers for one grid cell; ask for each point once`,
        "value_error.duplicate",
        d.point,
      );
    }
    seen.set(d.point, d);
    const any = d.samples.some((s) => VARIABLES.some((v) => s[v] !== null));
    if (!any) {
      issues.add(
        ["body"],
        `point ${d.point}: the delivery holds no value (every ${
          Object.values(d.names).join(", ")
        } is missing)`,
        "value_error.missing",
        d.point,
      );
    }
    checkDelivery(d, issues);
  }
  issues.throwIfAny();
}

/** What a point's delivery covered. */
function delivered(d: PointDelivery, s: QuarterHourSeries): DeliveredPoint {
  const n = s.values.temperature_c.length;
  const has = (i: number) => VARIABLES.some((v) => !Number.isNaN(s.values[v][i]));
  let first = 0, last = n - 1, count = 0;
  while (first < n && !has(first)) first++;
  while (last > first && !has(last)) last--;
  for (let i = first; i <= last; i++) if (has(i)) count++;
  return {
    point_id: d.point,
    resolution: d.stepMs === HOUR_MS ? "hourly" : "quarter-hourly",
    from: new Date(s.start + first * QH_MS).toISOString(),
    to: new Date(s.start + (last + 1) * QH_MS).toISOString(),
    quarter_hours: count,
  };
}

/** The event's and the answer's sentence. */
function sentence(
  by: string,
  format: WeatherFormat,
  points: DeliveredPoint[],
  receivedAt: string,
  s: Omit<StoreOutcome, "changed_points">,
): string {
  const minute = (iso: string) => iso.slice(0, 16).replace("T", " ");
  const from = points.map((p) => p.from).sort()[0];
  const to = points.map((p) => p.to).sort().at(-1)!;
  const names = points.slice(0, 3).map((p) => p.point_id).join("; ") +
    (points.length > 3 ? ` and ${points.length - 3} more` : "");
  const qh = points.reduce((sum, p) => sum + p.quarter_hours, 0);
  return `${by} sent weather (${LABEL[format]}) for ${
    points.length === 1 ? "point" : `${points.length} points:`
  } ${names}, ${minute(from)} to ${
    minute(to)
  } UTC, ${qh} quarter-hours, received at ${receivedAt}: ${s.added} new, ${s.changed} changed, ${s.unchanged} unchanged.`;
}
