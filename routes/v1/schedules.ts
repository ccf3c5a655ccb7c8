/**
 * `GET /v1/delivery-days/{day}/schedules/{control_area}?format=ess|cim` (process): the day-ahead
 * schedule of one delivery day and control area as the ENTSO-E document a TSO receives — ESS 2.3
 * `ScheduleMessage` or CIM `Schedule_MarketDocument` — built from the latest aggregate, with its
 * BDEW file name in `Content-Disposition` (docs/fahrplan.md).
 * Reading a document stores nothing: its message version is the stored one, or the next one when
 * the aggregate is newer than the last document.
 * @module
 */
import { z } from "zod";
import { scheduleFileName } from "../../lib/fahrplan/document.ts";
import { renderScheduleMemo } from "../../lib/fahrplan/render_memo.ts";
import { importInbox } from "../../lib/fahrplan/inbox.ts";
import { peekScheduleVersion } from "../../lib/fahrplan/versions.ts";
import { answer } from "../../lib/http/respond.ts";
import { problem, ValidationFailed } from "../../lib/http/errors.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { parseOr422 } from "../../lib/http/validation.ts";
import { readAggregate } from "../../lib/pipeline/aggregate.ts";
import { scheduleFor } from "../../lib/pipeline/submit_files.ts";
import { dayParam } from "./delivery_days.ts";

const ScheduleQuery = z.strictObject({
  format: z.enum(["ess", "cim"]).optional().meta({
    description: "ess (ENTSO-E ESS 2.3, default) or cim (IEC 62325-451-2)",
  }),
});

const EIC = /^[0-9A-Z-]{16}$/;

/** Registers the schedule document delivery. */
export function registerSchedules(ctx: RouteContext): void {
  ctx.routes.add({
    method: "get",
    path: "/v1/delivery-days/{day}/schedules/{control_area}",
    access: "process",
    summary: "The schedule document of a day and control area (ESS or CIM XML) for the TSO",
    tags: ["data delivery"],
    query: ScheduleQuery,
    responses: {
      200: {
        description: "the document",
        alternatives: [{
          contentType: "application/xml",
          schema: { type: "string" },
          description:
            "ESS ScheduleMessage or CIM Schedule_MarketDocument; file name YYYYMMDD_TPS_<sender>_<receiver>_<version>.xml",
        }],
      },
      404: { description: "not aggregated yet, or the control area is not in the aggregate" },
      409: { description: "the document would be invalid (parties missing, bad EIC, …)" },
    },
  }, async (c) => {
    const day = dayParam(c.req.param("day"));
    const area = c.req.param("control_area") ?? "";
    if (!EIC.test(area)) {
      throw new ValidationFailed([{
        loc: ["path", "control_area"],
        msg: "expected a control-area EIC (16 characters)",
        type: "value_error.eic",
        input: area,
        ctx: {},
      }]);
    }
    const q = parseOr422(ScheduleQuery, c.req.query(), "query");
    const agg = await readAggregate(ctx.kv, day);
    if (!agg) {
      return problem(404, `Delivery day ${day} has not been aggregated yet; no schedule to show.`);
    }
    const mw = agg.areas[area];
    if (!mw) {
      return problem(
        404,
        `Control area ${area} is not in the aggregate of ${day} (active: ${
          Object.keys(agg.areas).join(", ")
        }).`,
      );
    }
    const cfg = await ctx.config.effective();
    const now = ctx.clock.now();
    const v = await peekScheduleVersion(ctx.kv, day, area, agg.version, now);
    const doc = scheduleFor(cfg, agg, area, mw, v.message_version, now);
    const format = q.format ?? "ess";
    const xml = renderScheduleMemo(doc, format);
    return new Response(xml, {
      status: 200,
      headers: {
        "content-type": "application/xml; charset=utf-8",
        "content-disposition": `attachment; filename="${scheduleFileName(doc)}"`,
      },
    });
  });
}

/** Registers `POST /v1/schedule-responses/import`: the TSO answers in the inbox, imported now. */
export function registerScheduleResponses(ctx: RouteContext): void {
  ctx.routes.add({
    method: "post",
    path: "/v1/schedule-responses/import",
    access: "process",
    summary:
      "Import the TSO answers (ACK, CNF, ANO) waiting in the inbox now; what was done per file",
    tags: ["pipeline"],
    responses: {
      200: {
        description:
          "one entry per inbox file: imported (with day, area and status), rejected or skipped",
      },
    },
  }, async (c) => {
    const by = c.get("principal")?.caller ?? "unknown";
    const results = await importInbox(ctx, await ctx.config.effective(), by);
    return answer({ files: results });
  });
}
