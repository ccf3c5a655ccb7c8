/**
 * `POST /v1/orchestrate` (process): one orchestrator pass now, also while the orchestrator is
 * stopped (the operator's override, docs/pipeline.md, "Orchestrator").
 * @module
 */
import { answer } from "../../lib/http/respond.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";

/** Registers the manual pass. */
export function registerOrchestrate(ctx: RouteContext): void {
  ctx.routes.add({
    method: "post",
    path: "/v1/orchestrate",
    access: "process",
    summary: "Run one orchestrator pass now (works while stopped)",
    tags: ["pipeline"],
    responses: {
      200: { description: "what the pass ran, per delivery day" },
      409: { description: "a pass is already running in this instance" },
    },
  }, async (c) => answer(await ctx.orchestrator.runNow(c.get("principal")?.caller ?? "unknown")));
}
