/**
 * `GET /health` (docs/access-control.md, "Fail closed"): open, also when authentication is unconfigured.
 * @module
 */
import { z } from "zod";
import type { RouteContext } from "../lib/http/route_context.ts";
import { VERSION } from "../lib/version.ts";

/** Registers the health probe. */
export function registerHealth(ctx: RouteContext): void {
  ctx.routes.add({
    method: "get",
    path: "/health",
    access: "open",
    summary: "Health probe",
    tags: ["health"],
    responses: {
      200: {
        description: "the service answers",
        schema: z.object({ status: z.literal("ok"), version: z.string() }),
      },
    },
  }, (c) => c.json({ status: "ok", version: VERSION }));
}
