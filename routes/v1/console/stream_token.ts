/**
 * `POST /v1/console/stream-token` (docs/access-control.md, "Stream tokens"): exchanges a process credential
 * (API key or bearer) for a five-minute token valid only on the live stream.
 * @module
 */
import { answer } from "../../../lib/http/respond.ts";
import { z } from "zod";
import type { RouteContext } from "../../../lib/http/route_context.ts";

/** Response body: open shape (docs/access-control.md, "Stream tokens"). */
export const StreamTokenBody = z.looseObject({
  token: z.string(),
  expires_in: z.number().int(),
});

/** Registers the stream-token exchange. */
export function registerStreamToken(ctx: RouteContext): void {
  ctx.routes.add({
    method: "post",
    path: "/v1/console/stream-token",
    access: "process",
    summary: "Exchange a process credential for a stream token (300 s, stream endpoint only)",
    tags: ["console"],
    responses: { 200: { description: "the token", schema: StreamTokenBody } },
  }, () => answer(ctx.streamTokens.issue(), 200, { "cache-control": "no-store" }));
}
