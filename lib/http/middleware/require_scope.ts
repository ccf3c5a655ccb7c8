/**
 * Scope guard (SPEC §5.2, §5.5.2): a route declares a scope, never a credential type.
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { Scope } from "../../settings.ts";
import type { AppEnv } from "../env.ts";
import { problem } from "../errors.ts";

/** Answers 403 unless the authenticated principal holds `scope` (`process` ⊇ `external`). */
export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const p = c.get("principal");
    if (!p) return problem(401, "No credential.");
    if (!p.scopes.has(scope)) {
      const held = [...p.scopes].join(", ") || "no scope of this service";
      return problem(
        403,
        `This route needs the ${scope} scope; caller "${p.caller}" holds ${held}.`,
      );
    }
    await next();
  };
}
