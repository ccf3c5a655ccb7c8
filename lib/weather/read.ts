/**
 * The weather of a point as known at an instant (docs/weather.md, "Reading: as known at T"): per
 * UTC quarter-hour and variable, the newest value received before T — never one received at or
 * after T (no look-ahead). Per point and delivery day `lib/weather/store.ts` keeps every version
 * and, beside them, the newest value of each quarter-hour over all of them (`WeatherLatest`). When
 * everything of a day was received before T — a forecast made now — that one record is the
 * answer; else (a replay of an earlier T) the versions received before T are read newest first,
 * until every asked quarter-hour has its value: usually after one or a few versions.
 * @module
 */
import { deliveryDay, localDayOf } from "../domain/delivery_day.ts";
import { getManyChunked } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import { QH_MS, type Variable, VARIABLES } from "./samples.ts";

/** One stored version of a point's day (the record under `KEYS.weatherVersion`). */
export interface WeatherVersion {
  /** Per variable, one value per quarter-hour of the day (92/96/100); `NaN` = not in this delivery. */
  temperature_c: Float64Array;
  ghi_w_m2: Float64Array;
  wind_speed_m_s: Float64Array;
  /** ISO-8601 UTC instant it was received (also the key's last part, in epoch ms). */
  received_at: string;
  /** What delivered it: format, route or file, caller. */
  source: string;
}

/** A day's newest known values: per variable, value and the epoch ms it was received (`NaN`: none). */
export interface ComposedDay {
  values: Record<Variable, Float64Array>;
  receivedMs: Record<Variable, Float64Array>;
}

/** The record under `KEYS.weatherLatest`: the day's versions composed, newest value first. */
export interface WeatherLatest extends ComposedDay {
  /** Epoch ms of the newest version it holds: it answers every T after it. */
  newest_received_ms: number;
}

/** Versions read per list batch (a replay): the newest few usually answer a whole day. */
const BATCH = 8;

/** Nothing known yet of a day of `n` quarter-hours. */
export function emptyDay(n: number): ComposedDay {
  const fresh = () => new Float64Array(n).fill(NaN);
  return {
    values: { temperature_c: fresh(), ghi_w_m2: fresh(), wind_speed_m_s: fresh() },
    receivedMs: { temperature_c: fresh(), ghi_w_m2: fresh(), wind_speed_m_s: fresh() },
  };
}

/**
 * The newest value of every quarter-hour `[first, end)` of one point's delivery day among the
 * versions received before `beforeMs`.
 */
export async function composeDay(
  kv: Deno.Kv,
  day: string,
  point: string,
  beforeMs: number,
  first = 0,
  end = deliveryDay(day).quarterHours.length,
  latestRead?: WeatherLatest | null,
): Promise<ComposedDay> {
  const latest = latestRead !== undefined
    ? latestRead
    : (await kv.get<WeatherLatest>(KEYS.weatherLatest(day, point))).value;
  if (latest === null) return emptyDay(deliveryDay(day).quarterHours.length);
  if (latest.newest_received_ms < beforeMs) return latest;
  const out = emptyDay(deliveryDay(day).quarterHours.length);
  let open = VARIABLES.length * (end - first);
  for await (
    const e of kv.list<WeatherVersion>(KEYS.weatherVersionsBefore(day, point, beforeMs), {
      reverse: true,
      batchSize: BATCH,
    })
  ) {
    const received = e.key[3] as number;
    for (const v of VARIABLES) {
      const from = e.value[v], to = out.values[v], at = out.receivedMs[v];
      for (let i = first; i < end; i++) {
        if (Number.isNaN(to[i]) && !Number.isNaN(from[i])) {
          to[i] = from[i];
          at[i] = received;
          open--;
        }
      }
    }
    if (open === 0) break;
  }
  return out;
}

/** The weather of one point per UTC quarter-hour, as known at `as_of_ms`. */
export interface WeatherAsOf {
  point_id: string;
  /** UTC ms of the first quarter-hour, of the end (exclusive), of the instant T. */
  from_ms: number;
  to_ms: number;
  as_of_ms: number;
  /** °C at each quarter-hour's start; `null` where nothing was received before T. */
  temperature_c: (number | null)[];
  /** Global horizontal irradiance, mean over each quarter-hour, W/m²; `null` as above. */
  ghi_w_m2: (number | null)[];
  /** Wind speed at each quarter-hour's start, m/s; `null` as above. */
  wind_speed_m_s: (number | null)[];
  /** Per variable and quarter-hour, the epoch ms its value was received (always < T); `null` as above. */
  received_ms: Record<Variable, (number | null)[]>;
}

/** The longest range one call reads (a little more than a year). */
export const MAX_READ_DAYS = 400;

/**
 * The weather of `point` for the UTC quarter-hours `[fromMs, toMs)` as known at `asOfMs`: per
 * quarter-hour and variable the newest value received strictly before `asOfMs`
 * (docs/weather.md, "Reading: as known at T"). A later delivery never changes what an earlier
 * `asOfMs` sees. 8 weeks and 2 days of one point are 58 delivery days, read concurrently.
 * @param fromMs start of the first quarter-hour, epoch ms (a multiple of 15 min)
 * @param toMs end of the last quarter-hour, epoch ms (exclusive; a multiple of 15 min)
 * @param asOfMs the instant T, epoch ms: only values received before it are read
 * @throws {RangeError} when `fromMs`/`toMs` are not on quarter-hours, `toMs <= fromMs`, or the range
 *   is longer than {@link MAX_READ_DAYS} days
 */
export async function weatherAsOf(
  kv: Deno.Kv,
  point: string,
  fromMs: number,
  toMs: number,
  asOfMs: number,
): Promise<WeatherAsOf> {
  if (fromMs % QH_MS !== 0 || toMs % QH_MS !== 0 || !(toMs > fromMs)) {
    throw new RangeError(`[${fromMs}, ${toMs}) is not a range of whole UTC quarter-hours`);
  }
  if (toMs - fromMs > MAX_READ_DAYS * 86_400_000) {
    throw new RangeError(`at most ${MAX_READ_DAYS} days of weather are read at once`);
  }
  const n = (toMs - fromMs) / QH_MS;
  const out: WeatherAsOf = {
    point_id: point,
    from_ms: fromMs,
    to_ms: toMs,
    as_of_ms: asOfMs,
    temperature_c: new Array(n).fill(null),
    ghi_w_m2: new Array(n).fill(null),
    wind_speed_m_s: new Array(n).fill(null),
    received_ms: {
      temperature_c: new Array(n).fill(null),
      ghi_w_m2: new Array(n).fill(null),
      wind_speed_m_s: new Array(n).fill(null),
    },
  };
  const days: { day: string; first: number; end: number; offset: number }[] = [];
  for (let ms = fromMs; ms < toMs;) {
    const d = deliveryDay(localDayOf(ms));
    const dayStart = d.start.epochMilliseconds, dayEnd = d.end.epochMilliseconds;
    const first = (ms - dayStart) / QH_MS;
    const end = (Math.min(toMs, dayEnd) - dayStart) / QH_MS;
    // `offset`: the index in `out` of the day's quarter-hour 0.
    days.push({ day: d.day, first, end, offset: (ms - fromMs) / QH_MS - first });
    ms = Math.min(toMs, dayEnd);
  }
  // Every day's latest record at once (10 keys a read), then the versions where T is earlier.
  const latest = await getManyChunked<WeatherLatest>(
    kv,
    days.map((d) => KEYS.weatherLatest(d.day, point)),
  );
  const reads = days.map(async ({ day, first, end, offset }, k) => {
    const c = await composeDay(kv, day, point, asOfMs, first, end, latest[k].value);
    for (const v of VARIABLES) {
      for (let i = first; i < end; i++) {
        const x = c.values[v][i];
        if (Number.isNaN(x)) continue;
        out[v][offset + i] = x;
        out.received_ms[v][offset + i] = c.receivedMs[v][i];
      }
    }
  });
  await Promise.all(reads);
  return out;
}
