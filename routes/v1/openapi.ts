/**
 * `GET /v1/openapi.json` (docs/architecture.md, "API description and version"): the OpenAPI 3.1.0 document, any scope.
 * @module
 */
import { answer } from "../../lib/http/respond.ts";
import { z } from "zod";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { openApiDocument } from "../../lib/http/openapi_document.ts";

/** Registers the document route; call after every other route is registered. */
export function registerOpenApi(ctx: RouteContext): void {
  let doc: Record<string, unknown> | undefined;
  ctx.routes.add({
    method: "get",
    path: "/v1/openapi.json",
    access: "external",
    summary: "This OpenAPI 3.1.0 document",
    tags: ["meta"],
    responses: {
      200: {
        description: "OpenAPI 3.1.0 document",
        schema: z.looseObject({
          openapi: z.literal("3.1.0"),
          info: z.looseObject({ title: z.string(), version: z.string() }),
          paths: z.record(z.string(), z.record(z.string(), z.unknown())),
        }),
      },
    },
  }, () => {
    doc ??= openApiDocument(ctx.routes.specs, {
      external: ctx.settings.oidc?.scopeExternal ?? "forecast:write",
      process: ctx.settings.oidc?.scopeProcess ?? "process:run",
    });
    return answer(doc);
  });
}
