/**
 * `GET /v1/delivery-days/{day}/settlement` and `GET /v1/settlement/months/{month}` (scope
 * `process`): the settlement after delivery per control area and UTC quarter-hour, and the month
 * of days × areas (lib/wire/settlement.ts; rules in docs/settlement.md). Computed on read.
 * @module
 */
import { answer } from "../../lib/http/respond.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { settleDay, settleMonth } from "../../lib/settlement/settle_day.ts";
import { DaySettlementSchema, MonthSettlementSchema } from "../../lib/wire/settlement.ts";
import { dayParam, monthParam } from "../../lib/http/path_params.ts";

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
}
