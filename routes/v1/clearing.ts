/**
 * The clearing list of a month (scope `process`; docs/settlement.md, "Checking the settlement
 * data"): `GET /v1/settlement/months/{month}/clearing` — per control area the quarter-hours whose
 * balancing-group sum differs from our market-location sum by more than the tolerance, with the
 * month's MaBiS dates; `?format=csv` for a file — and `PUT …/clearing/{control_area}` to mark an
 * area's list checked or objected (on the list the operator read: its fingerprint).
 * @module
 */
import { z } from "zod";
import { HttpProblem } from "../../lib/http/errors.ts";
import { answer } from "../../lib/http/respond.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { parseOr422, readJson } from "../../lib/http/validation.ts";
import { tsoName } from "../../lib/fahrplan/tso_names.ts";
import { clearingCsv, clearingOfMonth } from "../../lib/settlement/clearing.ts";
import { markClearing } from "../../lib/settlement/clearing_marks.ts";
import { ClearingListSchema, ClearingMarkBody } from "../../lib/wire/clearing.ts";
import { areaParam, monthParam } from "../../lib/http/path_params.ts";

const ClearingQuery = z.strictObject({
  format: z.enum(["json", "csv"]).optional().meta({
    description: "json (default) or csv: one row per listed quarter-hour",
  }),
});

/** The list of `month` as the wire has it. */
async function listOf(ctx: RouteContext, month: string) {
  const cfg = await ctx.config.effective();
  const { mabisDates } = await import("../../lib/domain/mabis_calendar.ts");
  const list = await clearingOfMonth(ctx.kv, cfg, month, ctx.clock.now());
  return {
    month,
    tolerance_kwh: list.tolerance_kwh,
    mabis: mabisDates(month),
    areas: list.areas.map((a) => ({ ...a, name: tsoName(a.control_area) ?? a.control_area })),
  };
}

/** Registers both routes. */
export function registerClearing(ctx: RouteContext): void {
  ctx.routes.add({
    method: "get",
    path: "/v1/settlement/months/{month}/clearing",
    access: "process",
    summary:
      "The clearing list of a month: per control area the quarter-hours whose balancing-group sum differs from our market-location sum by more than the tolerance, with the MaBiS dates",
    tags: ["settlement"],
    query: ClearingQuery,
    responses: {
      200: {
        description: "the list (with ?format=csv a CSV file)",
        schema: ClearingListSchema,
        headers: {
          "Content-Disposition": {
            description: 'with ?format=csv: attachment; filename="clearing_<month>.csv"',
          },
        },
        alternatives: [{
          contentType: "text/csv",
          schema: { type: "string" },
          description:
            "delivery_day,start_utc,control_area,sum_mwh,ours_mwh,difference_mwh,status; CRLF line ends",
        }],
      },
      422: { description: "not a month YYYY-MM, or an unknown query parameter" },
    },
  }, async (c) => {
    const month = monthParam(c.req.param("month"));
    const q = parseOr422(ClearingQuery, c.req.query(), "query");
    const list = await listOf(ctx, month);
    if (q.format === "csv") {
      return c.body(clearingCsv(list.areas), 200, {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="clearing_${month}.csv"`,
      });
    }
    return answer(list);
  });

  ctx.routes.add({
    method: "put",
    path: "/v1/settlement/months/{month}/clearing/{control_area}",
    access: "process",
    summary:
      "Mark a control area's clearing list of a month checked or objected, on the list as read (its fingerprint)",
    tags: ["settlement"],
    body: ClearingMarkBody,
    responses: {
      200: { description: "marked: the area's list as it is now", schema: ClearingListSchema },
      404: { description: "no clearing list for this area and month" },
      409: { description: "the list changed since it was read: read it again" },
    },
  }, async (c) => {
    const month = monthParam(c.req.param("month"));
    const area = areaParam(c.req.param("control_area"));
    const body = parseOr422(ClearingMarkBody, await readJson(c.req.raw), "body");
    const list = await listOf(ctx, month);
    const now = list.areas.find((a) => a.control_area === area);
    if (!now) {
      throw new HttpProblem(
        404,
        `There is no clearing list for ${area} in ${month}: no balancing-group sum of a delivered day of that month is mapped to it.`,
      );
    }
    if (now.fingerprint !== body.fingerprint) {
      throw new HttpProblem(
        409,
        `The clearing list of ${now.name} for ${month} changed since it was read (now ${now.quarter_hours.length} quarter-hours over the tolerance, fingerprint ${now.fingerprint}): read it again before marking it.`,
      );
    }
    const by = c.get("principal")?.caller ?? "unknown";
    await markClearing(ctx.kv, month, area, {
      status: body.status,
      note: body.note,
      by,
      at: new Date(ctx.clock.now()).toISOString(),
      fingerprint: body.fingerprint,
    });
    await ctx.events.append({
      kind: "clearing_marked",
      level: body.status === "objected" ? "warning" : "info",
      message:
        `${by} marked the clearing list of ${now.name} for ${month} ${body.status} (${now.quarter_hours.length} quarter-hours, ${
          now.difference_mwh.toFixed(3)
        } MWh): ${body.note}`,
      caller: by,
      data: { month, control_area: area, status: body.status, fingerprint: body.fingerprint },
    });
    const after = await listOf(ctx, month);
    return answer({ ...after, areas: after.areas.filter((a) => a.control_area === area) });
  });
}
