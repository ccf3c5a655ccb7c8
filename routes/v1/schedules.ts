/**
 * `GET /v1/delivery-days/{day}/schedules/{control_area}?format=ess|cim&version=N` (process): the
 * schedule of one delivery day and control area as the ENTSO-E document a TSO receives — ESS 2.3
 * `ScheduleMessage` or CIM `Schedule_MarketDocument` — built from the latest aggregate (frozen
 * quarter-hours as they would leave now), or with `version` an older version as it was sent, with
 * its BDEW file name tagged with the format (`…_001_ESS.xml`, `…_001_CIM.xml`) in
 * `Content-Disposition` (docs/fahrplan.md, docs/intraday.md);
 * `…/versions` lists the day's and area's version history.
 * Reading a document stores nothing: its message version is the stored one, or the next one when
 * the aggregate is newer than the last document.
 * @module
 */
import { z } from "zod";
import { type ScheduleDocument, scheduleFileName } from "../../lib/fahrplan/document.ts";
import { formatTaggedName } from "../../lib/fahrplan/download_name.ts";
import { historyVersion, standingVersion, versionHistory } from "../../lib/fahrplan/history.ts";
import { frozenCount } from "../../lib/domain/deadlines.ts";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { type ScheduleVersions, ScheduleVersionsSchema } from "../../lib/wire/schedules.ts";
import type { Aggregate } from "../../lib/pipeline/aggregate.ts";
import { renderMemoModule } from "../../lib/fahrplan/xml_modules.ts";
import { importInbox } from "../../lib/fahrplan/inbox.ts";
import { acknowledgeRejected, listRejected } from "../../lib/fahrplan/rejected_answers.ts";
import { peekScheduleVersion } from "../../lib/fahrplan/versions.ts";
import { answer } from "../../lib/http/respond.ts";
import { problem } from "../../lib/http/errors.ts";
import { areaParam } from "../../lib/http/path_params.ts";
import { RejectedAnswerSchema, ScheduleImportSchema } from "../../lib/wire/schedule_responses.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { parseOr422 } from "../../lib/http/validation.ts";
import { readAggregate } from "../../lib/pipeline/aggregate.ts";
import { scheduleFor } from "../../lib/pipeline/schedule_documents.ts";
import { dayParam } from "./delivery_days.ts";

const ScheduleQuery = z.strictObject({
  format: z.enum(["ess", "cim"]).optional().meta({
    description: "ess (ENTSO-E ESS 2.3, default) or cim (IEC 62325-451-2)",
  }),
  version: z.coerce.number().int().min(1).max(999).optional().meta({
    description:
      "an older version as it was sent (docs/intraday.md); without it, the next document from the latest aggregate",
  }),
});

/** The `{control_area}` validator (`lib/http/path_params.ts`), where other modules found it. */
export { areaParam };

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
            "ESS ScheduleMessage or CIM Schedule_MarketDocument; file name YYYYMMDD_TPS_<sender>_<receiver>_<version>_ESS.xml or _CIM.xml",
        }],
        headers: {
          "Content-Disposition": {
            description:
              'attachment; filename="YYYYMMDD_TPS_<sender>_<receiver>_<version>_ESS.xml"',
            required: true,
          },
        },
      },
      404: {
        description:
          "not aggregated yet, the control area is not in the aggregate, or that version was never sent",
      },
      409: { description: "the document would be invalid (parties missing, bad EIC, …)" },
    },
  }, async (c) => {
    const day = dayParam(c.req.param("day"));
    const area = areaParam(c.req.param("control_area"));
    const q = parseOr422(ScheduleQuery, c.req.query(), "query");
    const format = q.format ?? "ess";
    if (q.version !== undefined) {
      const doc = await sentDocument(ctx, day, area, q.version);
      if (!doc) {
        return problem(404, `Version ${q.version} of ${day} for ${area} was never sent.`);
      }
      return await xmlAnswer(doc, format);
    }
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
    // As it would leave now: the quarter-hours inside the lead time frozen (docs/intraday.md).
    const frozen = {
      count: frozenCount(deliveryDay(day), now, cfg.intraday_lead_minutes),
      reference: standingVersion(await versionHistory(ctx.kv, day, area))?.quantities ?? [],
    };
    return await xmlAnswer(scheduleFor(cfg, agg, area, mw, v.message_version, now, frozen), format);
  });
  registerScheduleVersions(ctx);
}

/** The document of a version as it was sent (its stored quantities, today's parties). */
async function sentDocument(
  ctx: RouteContext,
  day: string,
  area: string,
  version: number,
): Promise<ScheduleDocument | null> {
  const h = await historyVersion(ctx.kv, day, area, version);
  if (!h) return null;
  const cfg = await ctx.config.effective();
  const agg = { delivery_day: day, version: h.aggregate_version } as Aggregate;
  return scheduleFor(cfg, agg, area, h.quantities, h.version, Date.parse(h.sent_at));
}

async function xmlAnswer(doc: ScheduleDocument, format: "ess" | "cim"): Promise<Response> {
  const { renderScheduleMemo } = await renderMemoModule();
  // Rendered once per content (docs/mixed-load.md): the same document is asked for often.
  return new Response(renderScheduleMemo(doc, format), {
    status: 200,
    headers: {
      "content-type": "application/xml; charset=utf-8",
      "content-disposition": `attachment; filename="${
        formatTaggedName(scheduleFileName(doc), format)
      }"`,
    },
  });
}

/** Registers `GET /v1/delivery-days/{day}/schedules/{control_area}/versions`. */
function registerScheduleVersions(ctx: RouteContext): void {
  ctx.routes.add({
    method: "get",
    path: "/v1/delivery-days/{day}/schedules/{control_area}/versions",
    access: "process",
    summary:
      "Every schedule version of a day and control area sent to the TSO: phase, sent_at, frozen_before, TSO status",
    tags: ["data delivery"],
    responses: {
      200: { description: "the versions, oldest first", schema: ScheduleVersionsSchema },
    },
  }, async (c) => {
    const day = dayParam(c.req.param("day"));
    const area = areaParam(c.req.param("control_area"));
    const history = await versionHistory(ctx.kv, day, area);
    const standing = standingVersion(history);
    const body: ScheduleVersions = {
      delivery_day: day,
      control_area: area,
      standing_version: standing?.version ?? null,
      standing_quantities: standing?.quantities ?? null,
      versions: history.map(({ quantities: _q, ...v }) => v),
    };
    return answer(body);
  });
}

/**
 * Registers `POST /v1/schedule-responses/import`: the TSO answers in the inbox, imported now, with
 * the files rejected earlier that still wait for the operator (`rejected_waiting`); and
 * `POST /v1/schedule-responses/rejected/{file}/acknowledge`: the operator has seen a rejected file
 * (docs/console_attention.md).
 */
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
          "one entry per inbox file: imported (with day, area and status), rejected or skipped; and the rejected files still waiting",
        schema: ScheduleImportSchema,
      },
    },
  }, async (c) => {
    const by = c.get("principal")?.caller ?? "unknown";
    const results = await importInbox(ctx, await ctx.config.effective(), by);
    return answer({ files: results, rejected_waiting: await listRejected(ctx.kv) });
  });
  ctx.routes.add({
    method: "post",
    path: "/v1/schedule-responses/rejected/{file}/acknowledge",
    access: "process",
    summary: "The operator has seen an answer file moved to rejected/: no attention item any more",
    tags: ["pipeline"],
    params: {
      file: { description: "the rejected file's name, as the import named it", refused: 404 },
    },
    responses: {
      200: {
        description: "the acknowledged file: name, inbox, reason, when",
        schema: RejectedAnswerSchema,
      },
      404: { description: "no rejected file of that name waits" },
    },
  }, async (c) => {
    const by = c.get("principal")?.caller ?? "unknown";
    const file = c.req.param("file") ?? "";
    const done = await acknowledgeRejected(ctx.kv, file);
    if (!done) {
      return problem(404, `No rejected answer file named ${file} waits to be acknowledged.`);
    }
    await ctx.events.append({
      kind: "rejected_answer_acknowledged",
      level: "info",
      message: `${by} acknowledged the rejected answer file ${file} (${done.reason}).`,
      caller: by,
      ...(done.delivery_day ? { delivery_day: done.delivery_day } : {}),
      data: { file },
    });
    return answer(done);
  });
}
