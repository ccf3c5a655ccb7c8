/**
 * Market-location master data (docs/pipeline.md, "Market locations"), scope `external`:
 * `PUT/GET/DELETE /v1/market-locations/{malo_id}` and `GET /v1/market-locations`.
 * @module
 */
import { answer } from "../../lib/http/respond.ts";
import { z } from "zod";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { problem } from "../../lib/http/errors.ts";
import { VALIDATION_BODY } from "../../lib/http/route_table.ts";
import { ValidationFailed } from "../../lib/http/errors.ts";
import { parseOr422, readJson } from "../../lib/http/validation.ts";
import { assertKnownWeatherPoints } from "../../lib/weather/points.ts";
import {
  asAnswered,
  deleteMarketLocation,
  getMarketLocation,
  listMarketLocations,
  putMarketLocation,
  putMarketLocations,
} from "../../lib/pipeline/market_locations.ts";
import type { MasterDataChange } from "../../lib/pipeline/master_data.ts";
import {
  MaloId,
  MarketLocationBatch,
  MarketLocationInput,
  MarketLocationSchema,
} from "../../lib/wire/market_locations.ts";

const ListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  after: z.string().regex(/^\d{11}$/, "expected a MaLo-ID").optional(),
});

const PathParams = z.object({ malo_id: MaloId });

/** Registers the market-location routes. */
export function registerMarketLocations(ctx: RouteContext): void {
  const path = "/v1/market-locations/{malo_id}";
  const idOf = (raw: string | undefined) =>
    parseOr422(PathParams, { malo_id: raw ?? "" }, "path").malo_id;
  /** A change by `caller` marks the open delivery days stale (their position depends on it). */
  const changeBy = async (caller: string | undefined): Promise<MasterDataChange> => ({
    by: caller ?? "unknown",
    gateClosureLocalTime: (await ctx.config.effective()).gate_closure_local_time,
  });
  ctx.routes.add({
    method: "put",
    path,
    access: "external",
    summary: "Create or replace a market location",
    tags: ["market data"],
    body: MarketLocationInput,
    responses: {
      200: { description: "replaced", schema: MarketLocationSchema },
      201: { description: "created", schema: MarketLocationSchema },
    },
  }, async (c) => {
    const id = idOf(c.req.param("malo_id"));
    const input = parseOr422(MarketLocationInput, await readJson(c.req.raw), "body");
    if (input.weather_point) {
      await assertKnownWeatherPoints(ctx.kv, [{
        point: input.weather_point,
        loc: ["body", "weather_point"],
      }]);
    }
    const { location, created } = await putMarketLocation(
      ctx.kv,
      id,
      input,
      ctx.clock.now(),
      await changeBy(c.get("principal")?.caller),
    );
    return answer(asAnswered(location), created ? 201 : 200);
  });
  ctx.routes.add({
    method: "get",
    path,
    access: "external",
    summary: "Read a market location",
    tags: ["market data"],
    responses: {
      200: { description: "the market location", schema: MarketLocationSchema },
      404: { description: "not registered" },
      422: { description: "not a valid MaLo-ID (loc [path, malo_id])", schema: VALIDATION_BODY },
    },
  }, async (c) => {
    const id = idOf(c.req.param("malo_id"));
    const loc = await getMarketLocation(ctx.kv, id);
    return loc ? answer(asAnswered(loc)) : problem(404, `Market location ${id} is not registered.`);
  });
  ctx.routes.add({
    method: "delete",
    path,
    access: "external",
    summary: "Remove a market location",
    tags: ["market data"],
    responses: {
      204: { description: "removed; open delivery days turn stale" },
      404: { description: "not registered" },
      422: { description: "not a valid MaLo-ID (loc [path, malo_id])", schema: VALIDATION_BODY },
    },
  }, async (c) => {
    const id = idOf(c.req.param("malo_id"));
    const change = await changeBy(c.get("principal")?.caller);
    return (await deleteMarketLocation(ctx.kv, id, ctx.clock.now(), change))
      ? c.body(null, 204)
      : problem(404, `Market location ${id} is not registered.`);
  });
  ctx.routes.add({
    method: "put",
    path: "/v1/market-locations",
    access: "external",
    summary: "Create or replace up to 500 market locations at once (all or nothing)",
    tags: ["market data"],
    body: MarketLocationBatch,
    responses: {
      200: {
        description: "how many were created and replaced",
        schema: z.object({
          created: z.number().int(),
          replaced: z.number().int(),
          unchanged: z.number().int(),
        }),
      },
    },
  }, async (c) => {
    const body = await readJson(c.req.raw);
    // One parse checks every item whole (a 422 item names `market_locations`, its index and the
    // field).
    const items = parseOr422(MarketLocationBatch, body, "body").market_locations;
    const ids = new Set<string>();
    items.forEach((it, i) => {
      if (ids.has(it.malo_id)) {
        throw new ValidationFailed([{
          loc: ["body", "market_locations", i, "malo_id"],
          msg: `market location ${it.malo_id} appears twice in this request`,
          type: "value_error.duplicate",
          input: it.malo_id,
          ctx: {},
        }]);
      }
      ids.add(it.malo_id);
    });
    await assertKnownWeatherPoints(
      ctx.kv,
      items.flatMap((it, i) =>
        it.weather_point
          ? [{ point: it.weather_point, loc: ["body", "market_locations", i, "weather_point"] }]
          : []
      ),
    );
    const change = await changeBy(c.get("principal")?.caller);
    return answer(await putMarketLocations(ctx.kv, items, ctx.clock.now(), change));
  });

  ctx.routes.add({
    method: "get",
    path: "/v1/market-locations",
    access: "external",
    summary: "List market locations in MaLo-ID order (page with after=<last malo_id>)",
    tags: ["market data"],
    query: ListQuery,
    responses: {
      200: {
        description: "a page",
        schema: z.object({
          market_locations: z.array(MarketLocationSchema),
          next_after: z.string().nullable(),
        }),
      },
    },
  }, async (c) => {
    const q = parseOr422(ListQuery, c.req.query(), "query");
    const page = await listMarketLocations(ctx.kv, { limit: q.limit, after: q.after });
    return answer({
      market_locations: page.map(asAnswered),
      next_after: page.length === q.limit ? page[page.length - 1].malo_id : null,
    });
  });
}
