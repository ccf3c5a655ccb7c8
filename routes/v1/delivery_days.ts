/**
 * Delivery-day steps and data delivery (docs/pipeline.md):
 * `POST /v1/delivery-days/{day}/forecast|aggregate|publish|submit` (process) run a step now;
 * `GET /v1/delivery-days/{day}/open-position` (external) returns the latest aggregate as JSON,
 * or as CSV with `Accept: text/csv`.
 * @module
 */
import { answer } from "../../lib/http/respond.ts";
import { z } from "zod";
import { OpenPositionSchema as OpenPosition } from "../../lib/wire/open_position.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { problem, ValidationFailed } from "../../lib/http/errors.ts";
import { type ResponseSpec, VALIDATION_BODY } from "../../lib/http/route_table.ts";
import { readAggregate } from "../../lib/pipeline/aggregate.ts";
import { readDay } from "../../lib/pipeline/day_state.ts";
import { runStep } from "../../lib/pipeline/steps.ts";
import { type RunnableStep, STEP_TABLE } from "../../lib/pipeline/step_table.ts";
import { localIso, openPositionCsv } from "../../lib/pipeline/open_position_csv.ts";

/** Validates the `{day}` path parameter. @throws {ValidationFailed} */
export function dayParam(raw: string | undefined): string {
  raw ??= "";
  try {
    deliveryDay(raw);
    return raw;
  } catch (err) {
    throw new ValidationFailed([{
      loc: ["path", "day"],
      msg: (err as Error).message,
      type: "value_error.date",
      input: raw,
      ctx: {},
    }]);
  }
}

const INVALID_DAY: ResponseSpec = {
  description: "{day} is not a calendar date YYYY-MM-DD (loc [path, day])",
  schema: VALIDATION_BODY,
};

/** What each step answers with 200. */
const STEP_RESULTS: Record<RunnableStep, z.ZodType> = {
  forecast: z.object({
    delivery_day: z.string(),
    generated: z.number().int(),
    removed: z.number().int(),
    unchanged: z.number().int(),
    customer: z.number().int(),
    without_profile: z.number().int(),
    input_version: z.number().int(),
    day_input_version: z.number().int(),
    master_version: z.number().int(),
  }),
  aggregate: z.object({
    delivery_day: z.string(),
    version: z.number().int(),
    counts: z.object({
      market_locations: z.number().int(),
      inactive_area: z.number().int(),
      missing_forecast: z.number().int(),
      unknown_location: z.number().int(),
    }),
  }),
  publish: z.object({
    delivery_day: z.string(),
    version: z.number().int(),
    target: z.enum(["sftp", "outbox"]),
    location: z.string(),
    file: z.string(),
    rows: z.number().int(),
  }),
  submit: z.union([
    z.object({
      delivery_day: z.string(),
      version: z.number().int(),
      idempotency_key: z.string(),
      sent: z.boolean(),
      receipt: z.object({
        status: z.number().int(),
        body: z.unknown(),
        attempts: z.number().int(),
        idempotency_key: z.string(),
      }),
    }),
    z.object({
      delivery_day: z.string(),
      version: z.number().int(),
      channel: z.literal("files"),
      format: z.enum(["ess", "cim"]),
      documents: z.array(z.object({
        control_area: z.string(),
        receiver: z.string(),
        version: z.number().int(),
        file: z.string(),
        location: z.string(),
      })),
    }),
  ]),
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
    conflict: "gate closure passed, not aggregated, platform not configured, or in flight",
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
    422: INVALID_DAY,
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
        alternatives: [{
          contentType: "text/csv",
          schema: { type: "string" },
          description:
            "columns quarter_hour_start_utc, quarter_hour_start_local (ISO 8601 with the Berlin offset), one column per control-area EIC in MW; '.' decimal, CRLF line ends",
        }],
      },
      404: { description: "not aggregated yet" },
      422: INVALID_DAY,
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
