/**
 * `GET /v1/console/delivery-days` (docs/pipeline.md, "Day state and staleness"; process): one entry per delivery day with the
 * state of each step, staleness with its reason, and gate closure.
 * @module
 */
import { answer } from "../../../lib/http/respond.ts";
import { z } from "zod";
import type { RouteContext } from "../../../lib/http/route_context.ts";
import { scheduleEntries } from "../../../lib/pipeline/schedule_view.ts";
import { listDays, overview } from "../../../lib/pipeline/day_state.ts";
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
        schema: z.object({ delivery_days: z.array(DayOverviewSchema) }),
      },
    },
  }, async () => {
    const cfg = await ctx.config.effective();
    const now = ctx.clock.now();
    const days = (await listDays(ctx.kv)).slice(-60);
    return answer({
      delivery_days: await Promise.all(days.map(async (d) => ({
        ...overview(d, now, cfg.gate_closure_local_time),
        schedules: await scheduleEntries(ctx.kv, d.delivery_day, now, cfg.intraday_lead_minutes),
      }))),
    });
  });
}
