/**
 * Declares routes once, with their scope and zod schemas, and registers them on Hono; the same
 * declarations generate the OpenAPI 3.1.0 document (docs/architecture.md, "API description and version"), so the document cannot drift from
 * what is served.
 * @module
 */
import type { Context, Hono } from "hono";
import { z } from "zod";
import type { Scope } from "../auth/types.ts";
import { VERSION } from "../version.ts";
import type { AppEnv } from "./env.ts";
import { deriveOperationId } from "./operation_id.ts";

/** Who may call a route: a scope, `open` (no credential) or `stream` (stream token only). */
export type Access = Scope | "open" | "stream";

/** One response of a route in the OpenAPI document. */
export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Default `application/json`. */
  contentType?: string;
  /** Other media types of the same response (content negotiation by `Accept`). */
  alternatives?: MediaSpec[];
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

const ERROR_BODY = z.object({ detail: z.string() });
/** The 422 body (docs/architecture.md, "Errors": `detail: [{loc, msg, type, input, ctx}]`), for OpenAPI. */
export const VALIDATION_BODY = z.object({
  detail: z.array(z.object({
    loc: z.array(z.union([z.string(), z.number()])),
    msg: z.string(),
    type: z.string(),
    input: z.unknown(),
    ctx: z.record(z.string(), z.unknown()),
  })),
});

const schemaOf = (s: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(s, { target: "draft-2020-12", io, unrepresentable: "any" });

/** An OpenAPI Media Type Object of a non-JSON body. */
const mediaObject = (m: MediaSpec) => ({
  schema: m.description ? { ...m.schema, description: m.description } : m.schema,
});

/**
 * Builds the OpenAPI 3.1.0 document from the declarations: every route with its scope as a
 * security requirement (API key, or bearer with the mapped token scope), and the error bodies
 * of docs/architecture.md, "Errors".
 * @param tokenScopes OIDC token scope per service scope (e.g. `process` → `process:run`)
 */
export function openApiDocument(
  specs: RouteSpec[],
  tokenScopes: Record<Scope, string>,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const s of specs) {
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(s.responses)) {
      const content: Record<string, unknown> = {};
      if (r.schema) {
        content[r.contentType ?? "application/json"] = { schema: schemaOf(r.schema, "output") };
      }
      for (const alt of r.alternatives ?? []) content[alt.contentType] = mediaObject(alt);
      responses[status] = {
        description: r.description,
        ...(Object.keys(content).length ? { content } : {}),
      };
    }
    if (s.access !== "open") {
      responses["401"] ??= {
        description: "missing or invalid credential",
        content: { "application/json": { schema: schemaOf(ERROR_BODY, "output") } },
      };
      responses["429"] ??= {
        description: "rate limit exceeded; see Retry-After",
        content: { "application/json": { schema: schemaOf(ERROR_BODY, "output") } },
      };
      responses["503"] ??= {
        description: "authentication not configured (fail closed)",
        content: { "application/json": { schema: schemaOf(ERROR_BODY, "output") } },
      };
    }
    if (s.access === "external" || s.access === "process") {
      responses["403"] ??= {
        description: `credential lacks the ${s.access} scope`,
        content: { "application/json": { schema: schemaOf(ERROR_BODY, "output") } },
      };
    }
    // The declared-length gate runs first on every route, whatever the method.
    responses["413"] ??= {
      description: "request body over MAX_REQUEST_BYTES (decided on Content-Length first)",
      content: { "application/json": { schema: schemaOf(ERROR_BODY, "output") } },
    };
    if (s.body || s.query) {
      responses["422"] ??= {
        description: "request validation failed",
        content: { "application/json": { schema: schemaOf(VALIDATION_BODY, "output") } },
      };
    }
    const parameters: unknown[] = [];
    for (const m of s.path.matchAll(/\{(\w+)\}/g)) {
      parameters.push({ name: m[1], in: "path", required: true, schema: { type: "string" } });
    }
    if (s.query) {
      for (const [name, field] of Object.entries(s.query.shape)) {
        parameters.push({
          name,
          in: "query",
          required: !(field as z.ZodType).safeParse(undefined).success,
          schema: schemaOf(field as z.ZodType, "input"),
        });
      }
    }
    if (s.access === "stream") {
      parameters.push({
        name: "token",
        in: "query",
        required: true,
        schema: { type: "string" },
        description: "stream token from POST /v1/console/stream-token",
      });
    }
    paths[s.path] ??= {};
    paths[s.path][s.method] = {
      operationId: operationIdOf(s),
      summary: s.summary,
      ...(s.tags ? { tags: s.tags } : {}),
      "x-required-scope": s.access,
      security: s.access === "external" || s.access === "process"
        ? [{ ApiKey: [] }, { Bearer: [tokenScopes[s.access]] }]
        : s.access === "stream"
        ? [{ StreamToken: [] }]
        : [],
      ...(parameters.length ? { parameters } : {}),
      ...(s.body || s.altBodies?.length
        ? {
          requestBody: {
            required: true,
            content: {
              ...(s.body ? { "application/json": { schema: schemaOf(s.body, "input") } } : {}),
              ...Object.fromEntries(
                (s.altBodies ?? []).map((m) => [m.contentType, mediaObject(m)]),
              ),
            },
          },
        }
        : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Scheduling bridge",
      version: VERSION,
      // The repository grants no licence: all rights reserved by the operator of the service.
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      description: "Day-ahead scheduling bridge: forecasts → open position → schedules. " +
        "Scopes: external (customer) and process (operator; includes external).",
    },
    servers: [{ url: "/" }],
    components: {
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        Bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT (RS256)" },
        StreamToken: {
          type: "apiKey",
          in: "query",
          name: "token",
          description: "stream token from POST /v1/console/stream-token (300 s, this route only)",
        },
      },
    },
    paths,
  };
}
