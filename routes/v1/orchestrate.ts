/**
 * `POST /v1/orchestrate[?wait=true]` (process): one orchestrator pass now, also while the
 * orchestrator is stopped (the operator's override, docs/orchestrator.md). While a pass
 * is under way in this instance it answers 409 in words; with `wait=true` it waits for that pass
 * to end and runs after it (what scripts such as `deno task demo` ask, whose call may meet the
 * cron's pass of the minute).
 * @module
 */
import { z } from "zod";
import { answer } from "../../lib/http/respond.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { parseOr422 } from "../../lib/http/validation.ts";
import { PassReportSchema } from "../../lib/wire/orchestrator.ts";

const OrchestrateQuery = z.strictObject({
  wait: z.enum(["true", "false"]).optional().meta({
    description:
      "true: while a pass is under way, wait for it to end and run after it (default false: 409)",
  }),
});

/** Registers the manual pass. */
export function registerOrchestrate(ctx: RouteContext): void {
  ctx.routes.add({
    method: "post",
    path: "/v1/orchestrate",
    access: "process",
    summary: "Run one orchestrator pass now (works while stopped)",
    tags: ["pipeline"],
    query: OrchestrateQuery,
    responses: {
      200: { description: "what the pass ran, per delivery day", schema: PassReportSchema },
      409: { description: "a pass is already running in this instance (and wait is not true)" },
    },
  }, async (c) => {
    const q = parseOr422(OrchestrateQuery, c.req.query(), "query");
    const by = c.get("principal")?.caller ?? "unknown";
    return answer(await ctx.orchestrator.runNow(by, { wait: q.wait === "true" }));
  });
}
