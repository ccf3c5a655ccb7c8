/**
 * Declares routes once, with their scope, zod schemas, statuses and headers, and registers them on
 * Hono; the same declarations generate the OpenAPI 3.1.0 document (`./openapi_document.ts`,
 * docs/api.md, "The document"), so the document cannot drift from what is served.
 * @module
 */
import type { Context, Hono } from "hono";
import type { z } from "zod";
import type { Scope } from "../auth/types.ts";
import { ValidationProblemSchema } from "../wire/problem.ts";
import type { AppEnv } from "./env.ts";
import { deriveOperationId } from "./operation_id.ts";

/** Who may call a route: a scope, `open` (no credential) or `stream` (stream token only). */
export type Access = Scope | "open" | "stream";

/** A header of a response or a request (RFC 9110 field name, any case). */
export interface HeaderSpec {
  description: string;
  /** True when every such answer carries it (responses) or every request must (requests). */
  required?: boolean;
  /** JSON Schema of the value; default `{type: "string"}`. */
  schema?: Record<string, unknown>;
}

/**
 * One response of a route in the OpenAPI document. A 4xx/5xx without a schema or media types is
 * the `{detail}` body (`Problem`), a 422 the validation body (`ValidationProblem`).
 */
export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Default `application/json`. */
  contentType?: string;
  /** Other media types of the same response (content negotiation by `Accept`). */
  alternatives?: MediaSpec[];
  /** Headers of this answer, e.g. `Content-Disposition` of a download. */
  headers?: Record<string, HeaderSpec>;
  /** True for an answer without a body (204, 304). */
  empty?: boolean;
}

/**
 * What a `{name}` path parameter accepts: the pattern its validator enforces (the same constant),
 * and the status a value outside it gets.
 */
export interface PathParam {
  description: string;
  pattern?: RegExp;
  /** JSON Schema `format`, e.g. `date`. */
  format?: string;
  example?: string;
  /** 422 (refused in words at `["path", name]`) or 404 (nothing of that name is served). */
  refused: 422 | 404;
}

/** A media type and its JSON Schema, for bodies that are not JSON (e.g. `text/csv`). */
export interface MediaSpec {
  contentType: string;
  /** JSON Schema of the body, e.g. `{type: "string"}` for a CSV text. */
  schema: Record<string, unknown>;
  /** What the body holds in this media type (columns, format). */
  description?: string;
}

/** Declaration of one route. */
export interface RouteSpec {
  method: "get" | "post" | "put" | "patch" | "delete";
  /** OpenAPI path with `{param}` placeholders, e.g. `/v1/delivery-days/{day}/aggregate`. */
  path: string;
  access: Access;
  summary: string;
  /**
   * The `operationId` in the OpenAPI document, unique across routes; default
   * {@link deriveOperationId} of the method and path (e.g. `getDeliveryDaySchedule`).
   */
  operationId?: string;
  tags?: string[];
  /** Schema of the query parameters (an object). */
  query?: z.ZodObject;
  /** Schema of the JSON body. */
  body?: z.ZodType;
  /** Other accepted request media types beside JSON (e.g. a `text/csv` upload). */
  altBodies?: MediaSpec[];
  /**
   * Path parameters this route declares itself; the others come from the shared table
   * (`PATH_PARAMS`, `./path_params.ts`).
   */
  params?: Record<string, PathParam>;
  /** Request headers the route reads (e.g. `Last-Event-ID`, `If-None-Match`). */
  requestHeaders?: Record<string, HeaderSpec>;
  /**
   * The route's own answers: its 200 and every status only it gives (404, 409, 415, 502, …).
   * The statuses of the request path (401, 403, 413, 422, 429, 500, 503) are added from the
   * route's access, query, body and path parameters.
   */
  responses: Record<number, ResponseSpec>;
}

/** A route handler. */
export type Handler = (c: Context<AppEnv>) => Response | Promise<Response>;

/**
 * Turns a route's handler into the one Hono handler registered for it: the request path of
 * docs/architecture.md (body limit, authentication, rate limit, scope guard, audit, headers) around it,
 * chosen once per route from its declaration.
 */
export type RouteWrapper = (spec: RouteSpec, handler: Handler) => Handler;

/** Registers routes and remembers their declarations. */
export class RouteTable {
  readonly specs: RouteSpec[] = [];
  #app: Hono<AppEnv>;
  #wrap: RouteWrapper;

  /**
   * @param app the Hono app
   * @param wrap builds each route's whole request path; one Hono handler per route lets Hono
   *   dispatch without composing a middleware chain on every request
   */
  constructor(app: Hono<AppEnv>, wrap: RouteWrapper) {
    this.#app = app;
    this.#wrap = wrap;
  }

  /**
   * Declares and registers one route.
   * @throws Error when another route already has this route's `operationId` (a programming
   *   error: generated clients would get one method for two operations)
   */
  add(spec: RouteSpec, handler: Handler): void {
    const id = operationIdOf(spec);
    const twin = this.specs.find((s) => operationIdOf(s) === id);
    if (twin) {
      throw new Error(
        `${spec.method.toUpperCase()} ${spec.path} has the operationId ${id} of ` +
          `${twin.method.toUpperCase()} ${twin.path}; declare an operationId for one of them`,
      );
    }
    this.specs.push(spec);
    this.#patterns.push({ method: spec.method.toUpperCase(), re: pathPattern(spec.path) });
    const honoPath = spec.path.replace(/\{(\w+)\}/g, ":$1");
    this.#app.on(spec.method.toUpperCase(), [honoPath], this.#wrap(spec, handler));
  }

  /**
   * The methods declared for a concrete request path (e.g. `["GET", "HEAD", "PUT"]` for
   * `/v1/console/config`), for a 405 answer with `Allow` (RFC 9110 §15.5.6); empty when no route
   * has this path. `HEAD` is listed wherever `GET` is (Hono answers it from the GET route).
   */
  methodsFor(path: string): string[] {
    const out = new Set<string>();
    for (const p of this.#patterns) {
      if (!p.re.test(path)) continue;
      out.add(p.method);
      if (p.method === "GET") out.add("HEAD");
    }
    return [...out];
  }

  #patterns: { method: string; re: RegExp }[] = [];
}

/** The route's `operationId`: declared, or derived from method and path. */
export const operationIdOf = (spec: RouteSpec): string =>
  spec.operationId ?? deriveOperationId(spec.method, spec.path);

/** A declared path as a RegExp: `{param}` matches one segment, as Hono's `:param` does. */
function pathPattern(path: string): RegExp {
  const parts = path.split(/\{\w+\}/).map((literal) =>
    literal.replace(/[.*+?^$()|[\]\\]/g, "\\$&")
  );
  return new RegExp(`^${parts.join("[^/]+")}$`);
}

/** The 422 body (docs/api.md, "Errors"); the name the routes used before `lib/wire/problem.ts`. */
export const VALIDATION_BODY = ValidationProblemSchema;
