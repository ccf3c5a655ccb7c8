/**
 * Scope guard (docs/access-control.md, "Scopes"): a route declares a scope, never a credential type.
 * @module
 */
import type { Scope } from "../../auth/types.ts";
import type { Gate } from "../env.ts";
import { problem } from "../errors.ts";

/** Gate answering 403 unless the authenticated principal holds `scope` (`process` ⊇ `external`). */
export function requireScope(scope: Scope): Gate {
  return (c) => {
    const p = c.get("principal");
    if (!p) return problem(401, "No credential.");
    if (p.scopes.has(scope)) return undefined;
    const held = [...p.scopes].join(", ") || "no scope of this service";
    return problem(
      403,
      `This route needs the ${scope} scope; caller "${p.caller}" holds ${held}.`,
    );
  };
}
