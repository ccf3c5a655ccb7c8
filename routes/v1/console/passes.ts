/**
 * `GET /v1/console/passes` (process): the pass history, newest first, paged with `before=`
 * (docs/console.md, "Pass history"; `lib/orchestrator/pass_history.ts`).
 * @module
 */
import { z } from "zod";
import { answer } from "../../../lib/http/respond.ts";
import type { RouteContext } from "../../../lib/http/route_context.ts";
import { parseOr422 } from "../../../lib/http/validation.ts";
import { MAX_PAGE, type PassHistory } from "../../../lib/orchestrator/pass_history.ts";
import { PassPageSchema } from "../../../lib/wire/pass_history.ts";
import { wholeNumber } from "./events.ts";

const PassesQuery = z.strictObject({
  limit: wholeNumber(1, MAX_PAGE, 50, `passes per page (1–${MAX_PAGE}, default 50)`),
  before: wholeNumber(
    1,
    Number.MAX_SAFE_INTEGER,
    undefined,
    "only passes older than this id (the next_before of the previous page)",
  ),
});

/** Registers the pass history. */
export function registerPasses(ctx: RouteContext, history: PassHistory): void {
  ctx.routes.add({
    method: "get",
    path: "/v1/console/passes",
    access: "process",
    summary: "Orchestrator passes, newest first (last 1,000 or 7 days), paged with before=",
    tags: ["console"],
    query: PassesQuery,
    responses: {
      200: {
        description: "a page of passes: per day what ran, failed or was not tried, and why",
        schema: PassPageSchema,
      },
    },
  }, async (c) => {
    const q = parseOr422(PassesQuery, c.req.query(), "query");
    return answer(await history.page({ limit: q.limit, before: q.before }));
  });
}
