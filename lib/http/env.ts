/**
 * Typed Hono context shared by every middleware and route (DESIGN §3).
 * @module
 */
import type { Principal } from "../auth/principal.ts";

/** Context variables set along the request path. */
export interface AppEnv {
  Variables: {
    /** Set by the `requestId` middleware. */
    requestId: string;
    /** Set by authentication; absent on open routes and before authentication ran. */
    principal?: Principal;
  };
  /** `Deno.serve`'s handler info (remote address), when served by Deno. */
  Bindings: { remoteAddr?: Deno.NetAddr };
}
