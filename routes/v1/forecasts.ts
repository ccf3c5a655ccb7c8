/**
 * `POST /v1/forecasts` (scope `external`): one forecast or a batch as JSON, or long-format CSV
 * with `Content-Type: text/csv` (see `lib/pipeline/forecast_input.ts`). All or nothing; re-posting
 * the same forecast is idempotent; one `forecast_received` event per accepted request.
 * @module
 */
import { answer } from "../../lib/http/respond.ts";
import { z } from "zod";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { HttpProblem } from "../../lib/http/errors.ts";
import { readJson } from "../../lib/http/validation.ts";
import {
  ForecastBody,
  forecastsFromCsv,
  forecastsFromJson,
} from "../../lib/pipeline/forecast_input.ts";
import { ingestForecasts } from "../../lib/pipeline/forecasts.ts";
import { registeredMarketLocations } from "../../lib/pipeline/market_locations.ts";

const Result = z.object({
  results: z.array(z.object({
    delivery_day: z.string(),
    changed: z.number().int(),
    unchanged: z.number().int(),
    input_version: z.number().int(),
  })),
});

/** Registers forecast ingestion. */
export function registerForecasts(ctx: RouteContext): void {
  const known = (ids: string[]) => registeredMarketLocations(ctx.kv, ids);
  ctx.routes.add({
    method: "post",
    path: "/v1/forecasts",
    access: "external",
    summary:
      "Send forecasts: JSON (one, or {forecasts: [...]} up to 500) or text/csv long format (market_location_id,start,kw); all or nothing",
    tags: ["forecasts"],
    body: ForecastBody,
    altBodies: [{
      contentType: "text/csv",
      schema: { type: "string" },
      description:
        "long format with the header market_location_id,start,kw; start ISO 8601 with offset at a quarter-hour; kw average power of that quarter-hour",
    }],
    responses: {
      200: { description: "accepted; per delivery day what changed", schema: Result },
      409: { description: "gate closure of a delivery day has passed; nothing was stored" },
      415: { description: "Content-Type is neither application/json nor text/csv" },
    },
  }, async (c) => {
    const caller = c.get("principal")?.caller ?? "unknown";
    const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
    const isCsv = type === "text/csv";
    if (!isCsv && type !== "" && type !== "application/json" && !type.endsWith("+json")) {
      throw new HttpProblem(
        415,
        `Content-Type ${type} is not accepted here; send application/json (one forecast, or {"forecasts": [...]}) or text/csv (header market_location_id,start,kw).`,
      );
    }
    const items = isCsv
      ? await forecastsFromCsv(await c.req.text(), known)
      : await forecastsFromJson(await readJson(c.req.raw), known);
    const results = await ingestForecasts(ctx.kv, items, caller, ctx.clock.now());
    const locations = new Set(items.map((i) => i.malo_id)).size;
    const days = results.map((r) =>
      `${r.delivery_day}: ${r.changed} changed, ${r.unchanged} unchanged`
    );
    await ctx.events.append({
      kind: "forecast_received",
      message: `${caller} sent forecasts for ${locations} market location${
        locations === 1 ? "" : "s"
      } (${days.join("; ")})`,
      caller,
      delivery_day: results.length === 1 ? results[0].delivery_day : undefined,
      data: { market_locations: locations, results, format: isCsv ? "csv" : "json" },
    });
    return answer({ results });
  });
}
