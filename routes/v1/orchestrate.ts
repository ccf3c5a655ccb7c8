/**
 * `POST /v1/orchestrate` (process): one orchestrator pass now, also while the orchestrator is
 * stopped (the operator's override, docs/pipeline.md, "Orchestrator").
 * @module
 */
import type { ServiceContext } from "../../lib/context.ts";
import { runPass } from "../../lib/orchestrator/orchestrator.ts";

/** Registers the manual pass. */
export function registerOrchestrate(ctx: ServiceContext): void {
  ctx.routes.add({
    method: "post",
    path: "/v1/orchestrate",
    access: "process",
    summary: "Run one orchestrator pass now (works while stopped)",
    tags: ["pipeline"],
    responses: { 200: { description: "what the pass ran, per delivery day" } },
  }, async (c) => c.json(await runPass(ctx, c.get("principal")?.caller ?? "unknown")));
}
