/**
 * `GET /v1/console/delivery-days` (docs/pipeline.md, "Day state and staleness"; process): one entry per delivery day with the
 * state of each step, staleness with its reason, and gate closure; today and tomorrow also without
 * state (docs/console.md, "Rows").
 * @module
 */
import { answer } from "../../../lib/http/respond.ts";
import { z } from "zod";
import type { RouteContext } from "../../../lib/http/route_context.ts";
import { consoleDays } from "../../../lib/console/console_days.ts";
import { DayOverviewSchema } from "../../../lib/wire/delivery_days.ts";

/** Registers the overview. */
export function registerDeliveryDayOverview(ctx: RouteContext): void {
  ctx.routes.add({
    method: "get",
    path: "/v1/console/delivery-days",
    access: "process",
    summary: "Pipeline state per delivery day (aggregated, published, submitted, stale)",
    tags: ["console"],
    responses: {
      200: {
        description: "the newest 60 delivery days, oldest first",
        schema: z.object({
          delivery_days: z.array(DayOverviewSchema),
          /** Today's date in Europe/Berlin by the service's clock. */
          today: z.string(),
          /** Today and tomorrow (Berlin) when no state is stored for them: entries without steps. */
          without_state: z.array(DayOverviewSchema),
        }),
      },
    },
  }, async () => {
    const cfg = await ctx.config.effective();
    return answer(await consoleDays(ctx.kv, cfg, ctx.clock.now()));
  });
}
