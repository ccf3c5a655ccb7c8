/**
 * `GET /v1/delivery-days/{day}/settlement` and `GET /v1/settlement/months/{month}` (scope
 * `process`): the settlement after delivery per control area and UTC quarter-hour, and the month
 * of days × areas (lib/wire/settlement.ts; rules in docs/settlement.md). Computed on read.
 * @module
 */
import { answer } from "../../lib/http/respond.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { settleDay, settleMonth } from "../../lib/settlement/settle_day.ts";
import {
  DaySettlementSchema,
  LocationDeviationsSchema,
  MonthSettlementSchema,
} from "../../lib/wire/settlement.ts";
import { deviationsCsv, locationDeviations } from "../../lib/settlement/location_deviations.ts";
import { parseOr422 } from "../../lib/http/validation.ts";
import { z } from "zod";
import { dayParam, monthParam } from "../../lib/http/path_params.ts";

const LocationsQuery = z.strictObject({
  control_area: z.string().regex(/^[0-9A-Z-]{16}$/, "expected a control area EIC").meta({
    description: "the control area's EIC",
  }),
  format: z.enum(["json", "csv"]).optional().meta({
    description: "json (default, the first `limit`) or csv (every location)",
  }),
  limit: z.coerce.number().int().min(1).max(10_000).optional().meta({
    description: "locations in the JSON answer, largest deviation first (default 100)",
  }),
});

/** Registers both routes. */
export function registerSettlement(ctx: RouteContext): void {
  ctx.routes.add({
    method: "get",
    path: "/v1/delivery-days/{day}/settlement",
    access: "process",
    summary:
      "The settlement after delivery: schedule, day-ahead and actual per control area and quarter-hour, imbalance, reBAP price and cost, totals, accuracy, completeness",
    tags: ["settlement"],
    responses: {
      200: {
        description: "the settlement (provisional until complete)",
        schema: DaySettlementSchema,
      },
      422: { description: "not a delivery day YYYY-MM-DD" },
    },
  }, async (c) => {
    const day = dayParam(c.req.param("day"));
    const { any_input: _, ...body } = await settleDay(
      ctx.kv,
      await ctx.config.effective(),
      day,
      ctx.clock.now(),
    );
    return answer(body);
  });

  ctx.routes.add({
    method: "get",
    path: "/v1/settlement/months/{month}",
    access: "process",
    summary: "The month: imbalance and cost per day and control area (days with any input)",
    tags: ["settlement"],
    responses: {
      200: { description: "days × areas", schema: MonthSettlementSchema },
      422: { description: "not a month YYYY-MM" },
    },
  }, async (c) => {
    const month = monthParam(c.req.param("month"));
    return answer(await settleMonth(ctx.kv, await ctx.config.effective(), month, ctx.clock.now()));
  });

  ctx.routes.add({
    method: "get",
    path: "/v1/delivery-days/{day}/settlement/locations",
    access: "process",
    summary:
      "Where the deviation came from, per metered market location of a control area: its forecast and source against its actual, largest first (?format=csv for all of them)",
    tags: ["settlement"],
    query: LocationsQuery,
    responses: {
      200: {
        description: "the locations (with ?format=csv a CSV file of every one)",
        schema: LocationDeviationsSchema,
        headers: {
          "Content-Disposition": {
            description:
              'with ?format=csv: attachment; filename="deviations_<day>_<control_area>.csv"',
          },
        },
        alternatives: [{
          contentType: "text/csv",
          schema: { type: "string" },
          description:
            "malo_id,direction,source,quarter_hours,forecast_mwh,actual_mwh,abs_deviation_mwh; CRLF line ends",
        }],
      },
      422: { description: "not a delivery day, an EIC, or an unknown query parameter" },
    },
  }, async (c) => {
    const day = dayParam(c.req.param("day"));
    const q = parseOr422(LocationsQuery, c.req.query(), "query");
    const rows = await locationDeviations(
      ctx.kv,
      await ctx.config.effective(),
      day,
      q.control_area,
    );
    if (q.format === "csv") {
      return c.body(deviationsCsv(rows), 200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="deviations_${day}_${q.control_area}.csv"`,
      });
    }
    return answer({
      delivery_day: day,
      control_area: q.control_area,
      total: rows.length,
      locations: rows.slice(0, q.limit ?? 100),
    });
  });
}
