/**
 * Typed Hono context shared by every gate and route (docs/architecture.md, "Request path").
 * @module
 */
import type { Context } from "hono";
import type { Principal } from "../auth/principal.ts";

/**
 * Context variables set along the request path: Hono's typed variables
 * (https://hono.dev/docs/api/context#set-get), written with `c.set` and read with `c.get`. Read
 * them with `c.get`, not `c.var`: `c.var` copies the whole map into a new object on every access
 * (`Object.fromEntries`), and the rate limit, the scope guard and the audit each read the
 * principal of every API request.
 */
export interface AppEnv {
  Variables: {
    /** Set by authentication; absent on open routes and before authentication ran. */
    principal?: Principal;
  };
  /**
   * When served by Deno: the socket peer (`remoteAddr`) and the client address (`client`: the
   * peer, or behind a trusted proxy the address it names; docs/access-control.md, "Client
   * address").
   */
  Bindings: { remoteAddr?: Deno.NetAddr; client?: string };
}

/**
 * One step of a route's request path before its handler (body limit, authentication, rate
 * limit, scope guard): answers a `Response` to stop the request there, or `undefined` to let it
 * go on. Synchronous where it can be, so a request that needs no I/O never waits for a promise.
 */
export type Gate = (
  c: Context<AppEnv>,
) => Response | undefined | Promise<Response | undefined>;
