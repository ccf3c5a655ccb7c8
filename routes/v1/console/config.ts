/**
 * Runtime config routes (docs/architecture.md, "Runtime configuration"), process scope:
 * `GET` the effective config with sources (secrets masked), `PUT` a partial update (validated;
 * 422 as in docs/architecture.md, "Errors"), `DELETE` the whole overlay (every field back to its environment value).
 * A `config_changed` event says each change as old → new; a secret only as set, replaced or
 * removed, never its value (`lib/config/change_text.ts`).
 * @module
 */
import { answer } from "../../../lib/http/respond.ts";
import { ConfigBodySchema as ConfigBody } from "../../../lib/wire/config.ts";
import { ConfigChanges, type RuntimeConfig } from "../../../lib/config/runtime_config.ts";
import type { RouteContext } from "../../../lib/http/route_context.ts";
import { readJson } from "../../../lib/http/validation.ts";
import { changeSentence } from "../../../lib/config/change_text.ts";

/** Registers the config routes. */
export function registerConfig(ctx: RouteContext, config: RuntimeConfig): void {
  ctx.routes.add({
    method: "get",
    path: "/v1/console/config",
    access: "process",
    summary: "Effective runtime config with sources; secrets masked",
    tags: ["console"],
    responses: { 200: { description: "every field", schema: ConfigBody } },
  }, async () => answer(await config.view()));

  ctx.routes.add({
    method: "put",
    path: "/v1/console/config",
    access: "process",
    summary: "Change fields (partial update; null reverts a field to its environment value)",
    tags: ["console"],
    body: ConfigChanges,
    responses: {
      200: { description: "the new config and the changed fields", schema: ConfigBody },
    },
  }, async (c) => {
    const caller = c.get("principal")?.caller ?? "unknown";
    const { view, changed, changes } = await config.update(await readJson(c.req.raw));
    if (changed.length) {
      await ctx.events.append({
        kind: "config_changed",
        message: changeSentence(caller, changes),
        caller,
        // Effective values before and after; a secret shows as "********", never its value.
        data: { fields: changed, changes },
      });
    }
    return answer({ ...view, changed });
  });

  ctx.routes.add({
    method: "delete",
    path: "/v1/console/config",
    access: "process",
    summary: "Remove every runtime override (all fields back to environment values)",
    tags: ["console"],
    responses: { 200: { description: "the config after the reset", schema: ConfigBody } },
  }, async (c) => {
    const caller = c.get("principal")?.caller ?? "unknown";
    const changed = await config.reset();
    await ctx.events.append({
      kind: "config_changed",
      message: changed.length
        ? `${caller} reverted every runtime override (${changed.join(", ")})`
        : `${caller} reverted the runtime config; there were no overrides`,
      caller,
      data: { fields: changed, reset: true },
    });
    return answer({ ...(await config.view()), changed });
  });
}
