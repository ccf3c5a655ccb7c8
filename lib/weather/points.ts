/**
 * The weather points that have received weather (docs/weather.md, "Weather points"), one record
 * each under `KEYS.weatherPoint`: when the first and the last delivery arrived, what the last one
 * covered and where it came from. A market location may name only such a point as its
 * `weather_point` ({@link assertKnownWeatherPoints}). This module owns the key.
 * @module
 */
import { InvalidInput } from "../domain/errors.ts";
import { getManyChunked, retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";

/** One known weather point, as stored and answered. */
export interface WeatherPointRecord {
  point_id: string;
  /** ISO-8601 UTC instants of the first and the last accepted delivery. */
  first_received_at: string;
  last_received_at: string;
  /** Accepted deliveries so far (also those that changed nothing). */
  deliveries: number;
  /** The UTC quarter-hours the last delivery carried: start of the first, end of the last. */
  last_from: string;
  last_to: string;
  /** Where the last delivery came from (format, route or file, caller). */
  last_source: string;
  /**
   * ISO-8601 UTC instant of the last delivery that brought a new or changed value (a delivery
   * repeating what is known leaves it); absent in records from before it: `last_received_at`.
   */
  last_changed_at?: string;
}

/** What one delivery brought for one point. */
export interface PointDeliveryFacts {
  point: string;
  fromMs: number;
  toMs: number;
  /** Whether it brought anything new (default true). */
  changed?: boolean;
}

/**
 * Records accepted deliveries received at `receivedMs` (one atomic per 10 points, each checked).
 * @throws {import("../store/kv.ts").KvContentionError} when the records stayed contended
 */
export async function recordDeliveries(
  kv: Deno.Kv,
  facts: PointDeliveryFacts[],
  receivedMs: number,
  source: string,
): Promise<void> {
  const at = new Date(receivedMs).toISOString();
  for (let i = 0; i < facts.length; i += 10) {
    const part = facts.slice(i, i + 10);
    await retryKv(`record weather points ${part.map((f) => f.point).join(" ")}`, async () => {
      const entries = await getManyChunked<WeatherPointRecord>(
        kv,
        part.map((f) => KEYS.weatherPoint(f.point)),
      );
      const op = kv.atomic();
      part.forEach((f, k) => {
        const prev = entries[k];
        op.check(prev).set(
          prev.key,
          {
            point_id: f.point,
            first_received_at: prev.value?.first_received_at ?? at,
            last_received_at: at,
            deliveries: (prev.value?.deliveries ?? 0) + 1,
            last_from: new Date(f.fromMs).toISOString(),
            last_to: new Date(f.toMs).toISOString(),
            last_source: source,
            last_changed_at: f.changed === false
              ? prev.value?.last_changed_at ?? prev.value?.last_received_at ?? at
              : at,
          } satisfies WeatherPointRecord,
        );
      });
      return (await op.commit()).ok ? true : undefined;
    });
  }
}

/** The points among `ids` that have never received weather. */
export async function unknownWeatherPoints(kv: Deno.Kv, ids: string[]): Promise<Set<string>> {
  const distinct = [...new Set(ids)];
  const entries = await getManyChunked(kv, distinct.map((id) => KEYS.weatherPoint(id)));
  return new Set(distinct.filter((_, k) => entries[k].value === null));
}

/**
 * Refuses market locations naming a weather point that has never received weather.
 * @param refs each point named, with where it was named (e.g. `["body", "weather_point"]`)
 * @throws {InvalidInput} one issue per unknown point (`value_error.unknown_weather_point`)
 */
export async function assertKnownWeatherPoints(
  kv: Deno.Kv,
  refs: { point: string; loc: (string | number)[] }[],
): Promise<void> {
  if (refs.length === 0) return;
  const unknown = await unknownWeatherPoints(kv, refs.map((r) => r.point));
  const issues = refs.filter((r) => unknown.has(r.point)).slice(0, 20).map((r) => ({
    loc: r.loc,
    msg: `${r.loc.slice(1).join(".")}: weather point ${r.point} has never received weather here; ` +
      "send its weather first (POST /v1/weather or the weather inbox; GET /v1/weather/points " +
      "lists the known points)",
    type: "value_error.unknown_weather_point",
    input: r.point,
    ctx: {},
  }));
  if (issues.length) throw new InvalidInput(issues);
}

/**
 * Known weather points in id order.
 * @param opts `limit` (all when absent), `after` a point id to continue after
 */
export async function listWeatherPoints(
  kv: Deno.Kv,
  opts: { limit?: number; after?: string } = {},
): Promise<WeatherPointRecord[]> {
  const out: WeatherPointRecord[] = [];
  for await (
    const e of kv.list<WeatherPointRecord>(KEYS.weatherPoints(opts.after), { limit: opts.limit })
  ) out.push(e.value);
  return out;
}

/** The records of the points among `ids` that have received weather (by point id). */
export async function weatherPointRecords(
  kv: Deno.Kv,
  ids: string[],
): Promise<Map<string, WeatherPointRecord>> {
  const distinct = [...new Set(ids)];
  const entries = await getManyChunked<WeatherPointRecord>(
    kv,
    distinct.map((id) => KEYS.weatherPoint(id)),
  );
  const out = new Map<string, WeatherPointRecord>();
  entries.forEach((e, k) => {
    if (e.value) out.set(distinct[k], e.value);
  });
  return out;
}
