/**
 * `POST /v1/delivery-days/{day}/schedules/{control_area}/status-request` (process): asks the TSO
 * now for its current answer about the day's and area's schedule with a status request (SRQ, ESS or
 * CIM like the schedule, through the files channel), as the orchestrator does by itself when an
 * answer is overdue (docs/fahrplan.md, "Status requests"). Answers which file went out.
 * @module
 */
import { DomainError, PublishFailed } from "../../lib/domain/errors.ts";
import { sendStatusRequest } from "../../lib/fahrplan/status_requests.ts";
import { answer } from "../../lib/http/respond.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { areaParam, dayParam } from "../../lib/http/path_params.ts";
import { StatusRequestSchema } from "../../lib/wire/schedule_responses.ts";

/** Registers the manual status request. */
export function registerStatusRequests(ctx: RouteContext): void {
  ctx.routes.add({
    method: "post",
    path: "/v1/delivery-days/{day}/schedules/{control_area}/status-request",
    access: "process",
    summary:
      "Ask the TSO for its current answer about the schedule of a day and control area (status request, SRQ)",
    tags: ["pipeline"],
    responses: {
      200: {
        description: "the request went out: which file, where, when",
        schema: StatusRequestSchema,
      },
      409: {
        description:
          "no schedule of that day and area was sent, the schedules go to the market platform, or the request would not validate",
      },
      502: { description: "the publish target did not take the file" },
    },
  }, async (c) => {
    const day = dayParam(c.req.param("day"));
    const area = areaParam(c.req.param("control_area"));
    const by = c.get("principal")?.caller ?? "unknown";
    const cfg = await ctx.config.effective();
    try {
      return answer(await sendStatusRequest(ctx, cfg, day, area, "manual", by));
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw new PublishFailed(
        `The status request for ${day} ${area} was not handed over: ${(err as Error).message}`,
        { cause: err },
      );
    }
  });
}
