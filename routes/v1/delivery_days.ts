/**
 * Delivery-day steps and data delivery (docs/pipeline.md):
 * `POST /v1/delivery-days/{day}/forecast|aggregate|publish|submit` (process) run a step now;
 * `GET /v1/delivery-days/{day}/open-position` (external) returns the latest aggregate as JSON,
 * or as CSV with `Accept: text/csv`.
 * @module
 */
import { answer } from "../../lib/http/respond.ts";
import type { z } from "zod";
import {
  AggregateStepResultSchema,
  ForecastStepResultSchema,
  PublishStepResultSchema,
  SubmitStepResultSchema,
} from "../../lib/wire/steps.ts";
import { dayParam } from "../../lib/http/path_params.ts";
import { OpenPositionSchema as OpenPosition } from "../../lib/wire/open_position.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { problem } from "../../lib/http/errors.ts";
import type { ResponseSpec } from "../../lib/http/route_table.ts";
import { readAggregate } from "../../lib/pipeline/aggregate.ts";
import { readDay } from "../../lib/pipeline/day_state.ts";
import { runStep } from "../../lib/pipeline/steps.ts";
import { type RunnableStep, STEP_TABLE } from "../../lib/pipeline/step_table.ts";
import { localIso, openPositionCsv } from "../../lib/pipeline/open_position_csv.ts";

/** The `{day}` validator (`lib/http/path_params.ts`), where the step routes' modules found it. */
export { dayParam };

/** What each step answers with 200 (`lib/wire/steps.ts`). */
const STEP_RESULTS: Record<RunnableStep, z.ZodType> = {
  forecast: ForecastStepResultSchema,
  aggregate: AggregateStepResultSchema,
  publish: PublishStepResultSchema,
  submit: SubmitStepResultSchema,
};

/** What the OpenAPI document says of each step's route (the routes come from the step table). */
const STEP_DOCS: Record<RunnableStep, { summary: string; conflict: string }> = {
  forecast: {
    summary: "Generate profile forecasts for market locations without a customer forecast",
    conflict: "",
  },
  aggregate: { summary: "Aggregate the open position per active control area", conflict: "" },
  publish: {
    summary: "Publish the open position as CSV (sFTP, or the local outbox when no host is set)",
    conflict: "not aggregated yet",
  },
  submit: {
    summary:
      "Submit schedules to the market platform (once per aggregate version, before gate closure)",
    conflict:
      "gate closure (JSON) or the day's last open quarter-hour passed, not aggregated, platform or parties not configured, forecast coverage too low, a document would be invalid, or the same version is in flight",
  },
};
const STEP_ROUTES = STEP_TABLE.map((row) => ({
  path: row.route,
  step: row.step,
  ...STEP_DOCS[row.step],
}));

function stepResponses(step: (typeof STEP_ROUTES)[number]): Record<number, ResponseSpec> {
  const out: Record<number, ResponseSpec> = {
    200: { description: "the step's result", schema: STEP_RESULTS[step.step] },
  };
  if (step.conflict) out[409] = { description: step.conflict };
  if (step.step === "publish" || step.step === "submit") {
    out[502] = { description: "the sFTP server or market platform failed; see the event" };
  }
  return out;
}

/** Registers the delivery-day step routes and the open-position data delivery. */
export function registerDeliveryDays(ctx: RouteContext): void {
  for (const step of STEP_ROUTES) {
    ctx.routes.add({
      method: "post",
      path: `/v1/delivery-days/{day}/${step.path}`,
      access: "process",
      summary: step.summary,
      tags: ["pipeline"],
      responses: stepResponses(step),
    }, async (c) => {
      const day = dayParam(c.req.param("day"));
      const caller = c.get("principal")?.caller ?? "unknown";
      return answer(await runStep(ctx, day, step.step, caller));
    });
  }

  ctx.routes.add({
    method: "get",
    path: "/v1/delivery-days/{day}/open-position",
    access: "external",
    summary: "The open position (MW per quarter-hour and control area); CSV with Accept: text/csv",
    tags: ["data delivery"],
    responses: {
      200: {
        description:
          "the latest aggregate (with Accept: text/csv the CSV file of the publish step)",
        schema: OpenPosition,
        headers: {
          "Content-Disposition": {
            description:
              'with Accept: text/csv: attachment; filename="open_position_<day>_v<version>.csv"',
          },
        },
        alternatives: [{
          contentType: "text/csv",
          schema: { type: "string" },
          description:
            "columns quarter_hour_start_utc, quarter_hour_start_local (ISO 8601 with the Berlin offset), one column per control-area EIC in MW; '.' decimal, CRLF line ends",
        }],
      },
      404: { description: "not aggregated yet" },
    },
  }, async (c) => {
    const day = dayParam(c.req.param("day"));
    const agg = await readAggregate(ctx.kv, day);
    if (!agg) return problem(404, `Delivery day ${day} has not been aggregated yet.`);
    if ((c.req.header("accept") ?? "").includes("text/csv")) {
      return c.body(openPositionCsv(agg), 200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="open_position_${day}_v${agg.version}.csv"`,
      });
    }
    const state = (await readDay(ctx.kv, day)).value;
    return answer({
      delivery_day: day,
      version: agg.version,
      stale: (state?.input_version ?? 0) > agg.version,
      computed_at: agg.computed_at,
      unit: "MW",
      quarter_hours: agg.quarter_hours.map((q) => {
        const local_iso = localIso(q);
        return { start: q, local: local_iso.slice(11, 16), local_iso };
      }),
      areas: agg.areas,
    });
  });
}
