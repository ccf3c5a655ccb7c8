/**
 * Wire shapes of weather (docs/weather.md): the Open-Meteo answer `POST /v1/weather` takes (as
 * Open-Meteo documents it; the service checks it field by field, `lib/weather/open_meteo.ts`), the
 * answer of an accepted delivery, the known weather points, and a point's quarter-hours as known
 * at an instant. Instants are ISO-8601 UTC; temperature °C, irradiance W/m², wind speed m/s.
 * @module
 */
import { z } from "zod";

/** One location's answer of the Open-Meteo forecast API (open-meteo.com/en/docs), as it arrives. */
const OpenMeteoLocation = z.looseObject({
  latitude: z.number().describe("centre of the grid cell; the point id is lat,lon to 0.01°"),
  longitude: z.number(),
  utc_offset_seconds: z.number().int().describe("hourly.time = UTC + this offset"),
  timezone: z.string().optional(),
  timezone_abbreviation: z.string().optional(),
  hourly: z.looseObject({
    time: z.array(z.union([z.string(), z.number()])),
    temperature_2m: z.array(z.number().nullable()),
    shortwave_radiation: z.array(z.number().nullable()).describe("preceding hour mean, W/m²"),
    wind_speed_100m: z.array(z.number().nullable()).optional(),
    wind_speed_10m: z.array(z.number().nullable()).optional(),
  }),
  hourly_units: z.record(z.string(), z.string()).describe(
    "time iso8601|unixtime; temperature_2m °C|°F; shortwave_radiation W/m²; wind km/h|m/s|kn|mp/h",
  ),
});

/** The JSON body of `POST /v1/weather`: one Open-Meteo answer, or the array of several. */
export const OpenMeteoBody = z.union([OpenMeteoLocation, z.array(OpenMeteoLocation).min(1)]);

/** One point of an accepted delivery. */
const DeliveredPointSchema = z.object({
  point_id: z.string(),
  resolution: z.enum(["hourly", "quarter-hourly"]),
  /** Start of the first and end of the last quarter-hour with a value. */
  from: z.string(),
  to: z.string(),
  quarter_hours: z.number().int(),
});

/** `POST /v1/weather` → 200. Counts are quarter-hours of a point that carried a value. */
export const WeatherImportSchema = z.object({
  format: z.enum(["csv", "open_meteo"]),
  /** The instant the delivery was received: its values are known from then on. */
  received_at: z.string(),
  points: z.array(DeliveredPointSchema),
  added: z.number().int(),
  changed: z.number().int(),
  unchanged: z.number().int(),
  /** Versions stored (a point's delivery day with anything new). */
  versions: z.number().int(),
  days: z.array(z.string()),
  message: z.string(),
});

/** One known weather point. */
export const WeatherPointSchema = z.object({
  point_id: z.string(),
  first_received_at: z.string(),
  last_received_at: z.string(),
  deliveries: z.number().int(),
  last_from: z.string(),
  last_to: z.string(),
  last_source: z.string(),
  /** The last delivery that brought a new or changed value (absent: as `last_received_at`). */
  last_changed_at: z.string().optional(),
});

/** `GET /v1/weather/points` → 200. */
export const WeatherPointsPageSchema = z.object({
  weather_points: z.array(WeatherPointSchema),
  next_after: z.string().nullable(),
});

const perQuarterHour = z.array(z.number().nullable());

/** `GET /v1/weather/points/{point_id}` → 200: one value per quarter-hour, `null` = not known. */
export const WeatherAsOfSchema = z.object({
  point_id: z.string(),
  from: z.string(),
  to: z.string(),
  as_of: z.string(),
  quarter_hour_starts: z.array(z.string()),
  temperature_c: perQuarterHour,
  ghi_w_m2: perQuarterHour,
  wind_speed_m_s: perQuarterHour,
  /** Per variable and quarter-hour, when its value was received (ISO-8601 UTC). */
  received_at: z.object({
    temperature_c: z.array(z.string().nullable()),
    ghi_w_m2: z.array(z.string().nullable()),
    wind_speed_m_s: z.array(z.string().nullable()),
  }),
});
