/**
 * The OpenAPI 3.1.0 document (docs/api.md, "The document"), generated from the route table: per
 * operation its parameters (path parameters with the patterns their validators enforce, the query
 * schema, request headers), its body, and every status the service gives — the route's own and
 * those of the request path every route runs through (docs/architecture.md, "Request path"):
 *
 * | status | when                                                        | header                   |
 * | ------ | ----------------------------------------------------------- | ------------------------ |
 * | 401    | a route with a credential, none valid                       | `WWW-Authenticate`       |
 * | 403    | a scoped route, the credential lacks the scope              |                          |
 * | 413    | every route: the declared body is over `MAX_REQUEST_BYTES`  |                          |
 * | 422    | a body, a query, or a path parameter the route validates    |                          |
 * | 429    | a route with a credential: caller or address over its limit | `Retry-After`            |
 * | 500    | every route: an internal error                              | `X-Request-Id`           |
 * | 503    | a route with a credential: fail closed, or store contended  | `Retry-After` (contended) |
 *
 * A 4xx/5xx is `Problem` (`{detail}`), a 422 `ValidationProblem`; both from `lib/wire/problem.ts`.
 * A method a path does not declare answers 405 with `Allow` (`x-unrouted-responses`).
 * @module
 */
import type { z } from "zod";
import type { Scope } from "../auth/types.ts";
import { VERSION } from "../version.ts";
import { ProblemSchema, ValidationProblemSchema } from "../wire/problem.ts";
import { type JsonSchema, SchemaComponents } from "./openapi_schemas.ts";
import { PATH_PARAMS } from "./path_params.ts";
import {
  type HeaderSpec,
  type MediaSpec,
  operationIdOf,
  type PathParam,
  type ResponseSpec,
  type RouteSpec,
} from "./route_table.ts";

/** The path parameter `name` of `spec`: its own declaration, else the shared table's. */
export function pathParamOf(spec: RouteSpec, name: string): PathParam | undefined {
  return spec.params?.[name] ?? PATH_PARAMS[name];
}

/** The names of the `{param}`s of a declared path, in order. */
export const pathParamNames = (path: string): string[] =>
  [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/** True when the route refuses a query parameter its query schema does not name (a strict object). */
export function refusesUnknownQuery(spec: RouteSpec): boolean {
  const catchall = (spec.query?._zod.def as { catchall?: z.ZodType } | undefined)?.catchall;
  return catchall?._zod.def.type === "never";
}

/** True when the route answers 422 for its query, its body or a path parameter. */
export function validates(spec: RouteSpec): boolean {
  return Boolean(spec.body || spec.query) ||
    pathParamNames(spec.path).some((n) => pathParamOf(spec, n)?.refused === 422);
}

const RETRY_AFTER: HeaderSpec = {
  description: "whole seconds to wait before sending the request again (RFC 9110 §10.2.3)",
  required: true,
  schema: { type: "string", pattern: "^[0-9]+$" },
};

/** The statuses of the request path, added to every route they can come from. */
function requestPathResponses(spec: RouteSpec): Record<number, ResponseSpec> {
  const out: Record<number, ResponseSpec> = {
    // The declared-length gate runs first on every route, whatever the method.
    413: { description: "request body over MAX_REQUEST_BYTES (decided on Content-Length first)" },
    500: {
      description: "internal error; the body and the log line name the request id",
      headers: {
        "X-Request-Id": { description: "the id in the body and the log line", required: true },
      },
    },
  };
  if (spec.access !== "open") {
    out[401] = {
      description: spec.access === "stream"
        ? "missing, invalid or expired stream token"
        : "missing or invalid credential",
      headers: {
        "WWW-Authenticate": {
          description: spec.access === "stream"
            ? "the scheme: the stream token in the token query parameter (RFC 9110 §11.6.1)"
            : "the schemes: Bearer and the X-API-Key header (RFC 9110 §11.6.1)",
          required: true,
        },
      },
    };
    out[429] = {
      description: "too many requests of this caller, or failed attempts from this address",
      headers: { "Retry-After": RETRY_AFTER },
    };
    out[503] = {
      description:
        "authentication not configured (fail closed), or the store stayed contended: nothing was done, send it again after Retry-After",
      headers: {
        "Retry-After": { ...RETRY_AFTER, required: false, description: "sent when contended" },
      },
    };
  }
  if (spec.access === "external" || spec.access === "process") {
    out[403] = { description: `credential lacks the ${spec.access} scope` };
  }
  if (validates(spec)) {
    const why = [
      ...pathParamNames(spec.path).filter((n) => pathParamOf(spec, n)?.refused === 422)
        .map((n) => `{${n}} does not match its pattern`),
      ...(spec.query
        ? [
          `a query parameter is invalid${refusesUnknownQuery(spec) ? " or not declared here" : ""}`,
        ]
        : []),
      ...(spec.body ? ["the body is invalid"] : []),
    ];
    out[422] = { description: `request refused: ${why.join("; ")}` };
  }
  return out;
}

/** An OpenAPI Media Type Object of a non-JSON body. */
const mediaObject = (m: MediaSpec) => ({
  schema: m.description ? { ...m.schema, description: m.description } : m.schema,
});

const headersObject = (headers: Record<string, HeaderSpec>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, h]) => [name, {
      description: h.description,
      required: h.required ?? false,
      schema: h.schema ?? { type: "string" },
    }]),
  );

const pascal = (id: string) => id[0].toUpperCase() + id.slice(1);

/** The Response Object of `r` (status `status` of the operation `opId`). */
function responseObject(
  status: number,
  r: ResponseSpec,
  opId: string,
  components: SchemaComponents,
): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  const name = `${pascal(opId)}${status === 200 ? "" : status}Response`;
  if (r.schema) {
    content[r.contentType ?? "application/json"] = {
      schema: components.use(r.schema, "output", name),
    };
  } else if (status >= 400 && !r.alternatives?.length && !r.empty) {
    const problem = status === 422 ? ValidationProblemSchema : ProblemSchema;
    content["application/json"] = { schema: components.use(problem, "output") };
  }
  for (const alt of r.alternatives ?? []) content[alt.contentType] = mediaObject(alt);
  return {
    description: r.description,
    ...(r.headers ? { headers: headersObject(r.headers) } : {}),
    ...(Object.keys(content).length ? { content } : {}),
  };
}

/** The parameters of an operation: path, query, stream token, request headers. */
function parametersOf(s: RouteSpec, components: SchemaComponents): unknown[] {
  const parameters: unknown[] = [];
  for (const name of pathParamNames(s.path)) {
    const p = pathParamOf(s, name);
    parameters.push({
      name,
      in: "path",
      required: true,
      ...(p ? { description: p.description } : {}),
      schema: {
        type: "string",
        ...(p?.pattern ? { pattern: p.pattern.source } : {}),
        ...(p?.format ? { format: p.format } : {}),
      },
      ...(p?.example ? { example: p.example } : {}),
    });
  }
  if (s.query) {
    for (const [name, field] of Object.entries(s.query.shape)) {
      const schema = field as z.ZodType;
      parameters.push({
        name,
        in: "query",
        required: !schema.safeParse(undefined).success,
        schema: components.use(schema, "input"),
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
  for (const [name, h] of Object.entries(s.requestHeaders ?? {})) {
    parameters.push({
      name,
      in: "header",
      required: h.required ?? false,
      description: h.description,
      schema: h.schema ?? { type: "string" },
    });
  }
  return parameters;
}

/** The Operation Object of one route. */
function operationOf(
  s: RouteSpec,
  tokenScopes: Record<Scope, string>,
  components: SchemaComponents,
): Record<string, unknown> {
  const opId = operationIdOf(s);
  const declared: Record<number, ResponseSpec> = { ...requestPathResponses(s), ...s.responses };
  const responses: Record<string, unknown> = {};
  for (const status of Object.keys(declared).map(Number).sort((a, b) => a - b)) {
    responses[status] = responseObject(status, declared[status], opId, components);
  }
  const parameters = parametersOf(s, components);
  return {
    operationId: opId,
    summary: s.summary,
    ...(refusesUnknownQuery(s)
      ? { description: "A query parameter not listed here is refused with 422 (extra_forbidden)." }
      : {}),
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
            ...(s.body
              ? {
                "application/json": {
                  schema: components.use(s.body, "input", `${pascal(opId)}Request`),
                },
              }
              : {}),
            ...Object.fromEntries((s.altBodies ?? []).map((m) => [m.contentType, mediaObject(m)])),
          },
        },
      }
      : {}),
    responses,
  };
}

/**
 * Builds the OpenAPI 3.1.0 document from the declarations: every route with its scope as a
 * security requirement (API key, or bearer with the mapped token scope), every status and header
 * it answers with, and the schemas under `components.schemas`.
 * @param tokenScopes OIDC token scope per service scope (e.g. `process` → `process:run`)
 * @throws Error when two different schemas claim one component name (a programming error)
 */
export function openApiDocument(
  specs: RouteSpec[],
  tokenScopes: Record<Scope, string>,
): Record<string, unknown> {
  const components = new SchemaComponents();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const s of specs) {
    paths[s.path] ??= {};
    paths[s.path][s.method] = operationOf(s, tokenScopes, components);
  }
  const problem: JsonSchema = components.use(ProblemSchema, "output");
  return {
    openapi: "3.1.0",
    info: {
      title: "Scheduling bridge",
      version: VERSION,
      // The repository grants no licence: all rights reserved by the operator of the service.
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      description: "Day-ahead scheduling bridge: forecasts → open position → schedules. " +
        "Scopes: external (customer) and process (operator; includes external). " +
        "A path answers a method it does not declare with 405 and Allow, a path no route has " +
        "with 404 (both in x-unrouted-responses).",
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
      schemas: components.schemas,
    },
    paths,
    // Answers no operation gives (a method or a path the table does not have): an extension, not
    // components.responses, where they would be components no operation uses.
    "x-unrouted-responses": {
      "404": {
        description: "no route for this path",
        content: { "application/json": { schema: problem } },
      },
      "405": {
        description: "the path does not answer this method (RFC 9110 §15.5.6)",
        headers: headersObject({
          Allow: { description: "the methods the path answers", required: true },
        }),
        content: { "application/json": { schema: problem } },
      },
    },
  };
}
