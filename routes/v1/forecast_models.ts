/**
 * The learned forecasts' models (docs/forecasting.md, "In the service"; docs/api.md):
 * `GET /v1/market-locations/{malo_id}/forecast-model` (scope `external`, as the location's other
 * routes: a customer may see how its location is forecast) — method, trained at, window,
 * features, coefficients, in-sample and last-28-days errors beside the "7 days before" baseline and
 * the customer forecast; 404 in words when there is none — and `GET /v1/console/forecast-models`
 * (scope `process`): every metered location's method and errors, a page at a time, for the
 * console.
 * @module
 */
import { z } from "zod";
import { problem } from "../../lib/http/errors.ts";
import { answer } from "../../lib/http/respond.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { VALIDATION_BODY } from "../../lib/http/route_table.ts";
import { parseOr422 } from "../../lib/http/validation.ts";
import {
  listModels,
  modelBody,
  readModel,
  readModelsSummary,
} from "../../lib/pipeline/forecast_models.ts";
import { getMarketLocation } from "../../lib/pipeline/market_locations.ts";
import {
  ForecastModelPageSchema,
  ForecastModelRowSchema,
  ForecastModelSchema,
} from "../../lib/wire/forecast_models.ts";
import { MaloId } from "../../lib/wire/market_locations.ts";

const PathParams = z.object({ malo_id: MaloId });

const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  after: z.string().regex(/^\d{11}$/, "expected a MaLo-ID").optional(),
});

/** Registers the forecast-model routes. */
export function registerForecastModels(ctx: RouteContext): void {
  ctx.routes.add({
    method: "get",
    path: "/v1/market-locations/{malo_id}/forecast-model",
    access: "external",
    summary: "How a metered market location's forecast is learned: model and its recent errors",
    tags: ["market data"],
    responses: {
      200: { description: "the model", schema: ForecastModelSchema },
      404: { description: "not registered, a profile location, or no model made yet" },
      422: { description: "not a valid MaLo-ID (loc [path, malo_id])", schema: VALIDATION_BODY },
    },
  }, async (c) => {
    const id = parseOr422(PathParams, { malo_id: c.req.param("malo_id") ?? "" }, "path").malo_id;
    const [loc, model] = await Promise.all([getMarketLocation(ctx.kv, id), readModel(ctx.kv, id)]);
    if (!loc) return problem(404, `Market location ${id} is not registered.`);
    if (loc.standard_load_profile) {
      return problem(
        404,
        `Market location ${id} is forecast by its standard load profile ${loc.standard_load_profile}, not by a learned model: the DSO settles it by that profile (StromNZV § 12).`,
      );
    }
    if (!model) {
      return problem(
        404,
        `Market location ${id} has no forecast model yet: the forecast step has not run since it was registered or changed.`,
      );
    }
    return answer(modelBody(model));
  });
  ctx.routes.add({
    method: "get",
    path: "/v1/console/forecast-models",
    access: "process",
    summary: "Every metered market location's forecast method and last-28-days errors, a page",
    tags: ["console"],
    query: PageQuery,
    responses: { 200: { description: "a page", schema: ForecastModelPageSchema } },
  }, async (c) => {
    const q = parseOr422(PageQuery, c.req.query(), "query");
    const [page, summary] = await Promise.all([
      listModels(ctx.kv, { limit: q.limit, after: q.after }),
      readModelsSummary(ctx.kv),
    ]);
    return answer({
      // The row is the model's answer cut to the row schema's fields (zod drops the rest).
      forecast_models: page.map((m) => ForecastModelRowSchema.parse(modelBody(m))),
      next_after: page.length === q.limit ? page[page.length - 1].malo_id : null,
      summary: summary
        ? {
          refreshed_at: summary.refreshed_at,
          delivery_day: summary.next_day,
          locations: summary.locations,
          by_method: summary.by_method as Record<string, number>,
        }
        : null,
    });
  });
}
