/**
 * `GET /health` (docs/access-control.md, "Fail closed"): open, also when authentication is unconfigured.
 * @module
 */
import { json } from "../lib/http/respond.ts";
import { z } from "zod";
import type { RouteContext } from "../lib/http/route_context.ts";
import { VERSION } from "../lib/version.ts";

/** The probe's answer never changes: written once (and found clean by the redaction once). */
const BODY = JSON.stringify({ status: "ok", version: VERSION });

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
  }, () => json(BODY));
}
