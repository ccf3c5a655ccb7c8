/**
 * `POST /v1/console/start` and `/stop` (docs/orchestrator.md): persist `running` / `stopped` and record
 * `orchestrator_started` / `orchestrator_stopped` with the caller. Body: the new state object.
 * @module
 */
import { answer } from "../../../lib/http/respond.ts";
import { OrchestratorStateSchema as OrchestratorStateBody } from "../../../lib/wire/orchestrator.ts";
import type { RouteContext } from "../../../lib/http/route_context.ts";
import type {
  OrchestratorStateName,
  OrchestratorStateStore,
} from "../../../lib/orchestrator/state.ts";

/**
 * Registers start and stop.
 * @param store the app's cached orchestrator state: the next status read shows the change
 */
export function registerOrchestratorControl(
  ctx: RouteContext,
  store: OrchestratorStateStore,
): void {
  const toggle = (verb: "start" | "stop", state: OrchestratorStateName, summary: string) =>
    ctx.routes.add({
      method: "post",
      path: `/v1/console/${verb}`,
      access: "process",
      summary,
      tags: ["console"],
      responses: { 200: { description: "the new state", schema: OrchestratorStateBody } },
    }, async (c) => {
      const caller = c.get("principal")?.caller ?? "unknown";
      const value = await store.write(state, caller, ctx.clock.now());
      await ctx.events.append({
        kind: state === "running" ? "orchestrator_started" : "orchestrator_stopped",
        message: state === "running"
          ? `${caller} started the orchestrator: scheduled runs happen.`
          : `${caller} stopped the orchestrator: scheduled runs are skipped; manual steps stay available.`,
        caller,
        data: { state },
      });
      return answer(value);
    });
  toggle("start", "running", "Start the orchestrator (scheduled runs resume)");
  toggle("stop", "stopped", "Stop the orchestrator (scheduled runs become no-ops)");
}
