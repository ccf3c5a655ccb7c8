/**
 * Post-delivery corrections (docs/post-delivery.md), scope `process`:
 * `GET /v1/delivery-days/{day}/post-delivery` — per active control area the TSO's deadline with
 * the rule that set it, open or closed now, the proposal (the schedule set to the actual) and the
 * corrections sent; `POST /v1/delivery-days/{day}/schedules/{control_area}/post-delivery` — send
 * a correction version (lib/post_delivery/correction.ts).
 * @module
 */
import { problem } from "../../lib/http/errors.ts";
import { answer } from "../../lib/http/respond.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { VALIDATION_BODY } from "../../lib/http/route_table.ts";
import { parseOr422, readJson } from "../../lib/http/validation.ts";
import { sendCorrection } from "../../lib/post_delivery/correction.ts";
import { postDeliveryView } from "../../lib/post_delivery/window.ts";
import {
  correctionBodyBranch,
  CorrectionBodySchema,
  CorrectionSentSchema,
  PostDeliverySchema,
} from "../../lib/wire/post_delivery.ts";
import { dayParam } from "./delivery_days.ts";
import { areaParam } from "./schedules.ts";

/** Registers both routes. */
export function registerPostDelivery(ctx: RouteContext): void {
  ctx.routes.add({
    method: "get",
    path: "/v1/delivery-days/{day}/post-delivery",
    access: "process",
    summary:
      "Post-delivery corrections of a day: per control area the TSO's deadline and rule, open or closed, and the proposal (schedule set to the actual, imbalance moved, its value)",
    tags: ["settlement"],
    responses: {
      200: { description: "every active control area", schema: PostDeliverySchema },
      422: { description: "not a delivery day YYYY-MM-DD", schema: VALIDATION_BODY },
    },
  }, async (c) => {
    const day = dayParam(c.req.param("day"));
    const cfg = await ctx.config.effective();
    return answer(await postDeliveryView(ctx.kv, cfg, day, ctx.clock.now()));
  });

  ctx.routes.add({
    method: "post",
    path: "/v1/delivery-days/{day}/schedules/{control_area}/post-delivery",
    access: "process",
    summary:
      "Send a post-delivery correction: the next version of the day's schedule with the given quantities or set to the actuals, until the TSO's deadline",
    tags: ["pipeline"],
    body: CorrectionBodySchema,
    responses: {
      200: { description: "the correction left for the TSO", schema: CorrectionSentSchema },
      404: { description: "the control area is not an active one" },
      409: {
        description:
          "in words: delivery not over, no schedule the TSO has, the TSO's deadline passed, nothing changes, the document would be invalid, or schedule_format json",
      },
      422: {
        description: "quantities not one per quarter-hour, not finite numbers, or a bad body",
        schema: VALIDATION_BODY,
      },
      502: { description: "the publish target or the market platform did not take it" },
    },
  }, async (c) => {
    const day = dayParam(c.req.param("day"));
    const area = areaParam(c.req.param("control_area"));
    const raw = await readJson(c.req.raw);
    const body = parseOr422(correctionBodyBranch(raw), raw, "body");
    const cfg = await ctx.config.effective();
    if (!cfg.active_control_areas.includes(area)) {
      return problem(
        404,
        `Control area ${area} is not an active control area (active: ${
          cfg.active_control_areas.join(", ")
        }); nothing was sent.`,
      );
    }
    const by = c.get("principal")?.caller ?? "unknown";
    return answer(
      await sendCorrection(
        {
          kv: ctx.kv,
          clock: ctx.clock,
          events: ctx.events,
          redactor: ctx.redactor,
          platformClient: ctx.platformClient,
          platformBackoffMs: ctx.settings.platformBackoffMs,
        },
        cfg,
        day,
        area,
        body,
        by,
      ),
    );
  });
}
