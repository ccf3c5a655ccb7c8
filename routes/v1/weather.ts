/**
 * Weather (docs/weather.md), scope `external`: `POST /v1/weather` takes a delivery — CSV
 * (`text/csv`, `point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s`) or an Open-Meteo answer
 * as it arrives (JSON) — all or nothing, received at the service clock's now;
 * `GET /v1/weather/points` lists the points that have weather; `GET /v1/weather/points/{point_id}`
 * shows a point's quarter-hours as known at an instant.
 * @module
 */
import { z } from "zod";
import { weatherPointProblem } from "../../lib/domain/weather_point.ts";
import { HttpProblem, problem } from "../../lib/http/errors.ts";
import { answer } from "../../lib/http/respond.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { VALIDATION_BODY } from "../../lib/http/route_table.ts";
import { parseOr422, readJson } from "../../lib/http/validation.ts";
import { importWeather, type WeatherFormat } from "../../lib/weather/import.ts";
import { listWeatherPoints, unknownWeatherPoints } from "../../lib/weather/points.ts";
import { weatherAsOf } from "../../lib/weather/read.ts";
import { VARIABLES } from "../../lib/weather/samples.ts";
import {
  OpenMeteoBody,
  WeatherAsOfSchema,
  WeatherImportSchema,
  WeatherPointsPageSchema,
} from "../../lib/wire/weather.ts";

/** The format of a request's body by its Content-Type, or 415. */
function formatOf(contentType: string | undefined): WeatherFormat {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (type === "text/csv") return "csv";
  if (type === "" || type === "application/json" || type.endsWith("+json")) return "open_meteo";
  throw new HttpProblem(
    415,
    `Content-Type ${type} is not accepted here; send text/csv (header point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s) or application/json (an Open-Meteo answer).`,
  );
}

const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  after: z.string().max(64).optional(),
});

const QH_MS = 900_000;
/** Longest range one read answers. */
const MAX_READ_DAYS = 31;
const instant = (what: string) =>
  z.string().regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/,
    `expected ${what}: ISO 8601 with an offset, e.g. 2026-11-25T00:00:00Z`,
  ).transform(Date.parse);
const ReadQuery = z.strictObject({
  from: instant("the start of the first quarter-hour"),
  to: instant("the end of the last quarter-hour"),
  as_of: instant("the instant T (values received before it)").optional(),
}).check((ctx) => {
  const { from, to } = ctx.value;
  const problem = from % QH_MS || to % QH_MS
    ? "from and to must be on UTC quarter-hours"
    : to <= from
    ? "to must be after from"
    : to - from > MAX_READ_DAYS * 86_400_000
    ? `at most ${MAX_READ_DAYS} days at once`
    : undefined;
  if (problem) {
    ctx.issues.push({ code: "custom", input: ctx.value, path: ["to"], message: problem });
  }
});

const PointPath = z.object({
  point_id: z.string().check((ctx) => {
    const p = weatherPointProblem(ctx.value);
    if (p) {
      ctx.issues.push({
        code: "custom",
        input: ctx.value,
        message: `not a weather point id: ${p}`,
        params: { type: "value_error.weather_point" },
      });
    }
  }),
});

/** Registers the weather routes. */
export function registerWeather(ctx: RouteContext): void {
  ctx.routes.add({
    method: "post",
    path: "/v1/weather",
    access: "external",
    summary:
      "Send weather: text/csv (point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s; hourly or quarter-hourly) or an Open-Meteo forecast answer as JSON; all or nothing, each value known from the instant it was received",
    tags: ["weather"],
    body: OpenMeteoBody,
    altBodies: [{
      contentType: "text/csv",
      schema: { type: "string" },
      description:
        'header point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s; point_id "lat,lon" (two decimals, quoted) or a name; start ISO 8601 with offset on the hour or quarter-hour; temperature and wind speed at start; ghi the mean irradiance over the row\'s hour or quarter-hour (W/m²)',
    }],
    responses: {
      200: {
        description: "stored; per point the quarter-hours delivered, and what was new",
        schema: WeatherImportSchema,
      },
      415: { description: "Content-Type is neither text/csv nor JSON" },
      422: {
        description: "refused in words (line or element, and field); nothing stored",
        schema: VALIDATION_BODY,
      },
    },
  }, async (c) => {
    const by = c.get("principal")?.caller ?? "unknown";
    const format = formatOf(c.req.header("content-type"));
    const body = format === "csv" ? await c.req.text() : await readJson(c.req.raw);
    return answer(await importWeather(ctx, format, body, by, "POST /v1/weather"));
  });

  ctx.routes.add({
    method: "get",
    path: "/v1/weather/points",
    access: "external",
    summary: "List the weather points that have received weather (page with after=<last point_id>)",
    tags: ["weather"],
    query: ListQuery,
    responses: { 200: { description: "a page", schema: WeatherPointsPageSchema } },
  }, async (c) => {
    const q = parseOr422(ListQuery, c.req.query(), "query");
    const page = await listWeatherPoints(ctx.kv, { limit: q.limit, after: q.after });
    return answer({
      weather_points: page,
      next_after: page.length === q.limit ? page[page.length - 1].point_id : null,
    });
  });

  ctx.routes.add({
    method: "get",
    path: "/v1/weather/points/{point_id}",
    access: "external",
    summary:
      "A weather point's quarter-hours [from, to) as known at as_of (default now): per quarter-hour the newest value received before it",
    tags: ["weather"],
    query: ReadQuery,
    responses: {
      200: { description: "one value per quarter-hour", schema: WeatherAsOfSchema },
      404: { description: "the point has never received weather" },
      422: { description: "a bad point id or range", schema: VALIDATION_BODY },
    },
  }, async (c) => {
    const { point_id } = parseOr422(PointPath, { point_id: c.req.param("point_id") }, "path");
    const q = parseOr422(ReadQuery, c.req.query(), "query");
    if ((await unknownWeatherPoints(ctx.kv, [point_id])).size) {
      return problem(404, `Weather point ${point_id} has never received weather.`);
    }
    // Default: everything received so far (a value received at this very instant included).
    const asOf = q.as_of ?? ctx.clock.now() + 1;
    const w = await weatherAsOf(ctx.kv, point_id, q.from, q.to, asOf);
    const iso = (ms: number | null) => ms === null ? null : new Date(ms).toISOString();
    return answer({
      point_id,
      from: iso(q.from),
      to: iso(q.to),
      as_of: iso(asOf),
      quarter_hour_starts: w.temperature_c.map((_, i) => iso(q.from + i * QH_MS)),
      temperature_c: w.temperature_c,
      ghi_w_m2: w.ghi_w_m2,
      wind_speed_m_s: w.wind_speed_m_s,
      received_at: Object.fromEntries(VARIABLES.map((v) => [v, w.received_ms[v].map(iso)])),
    });
  });
}
