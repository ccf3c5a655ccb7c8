/**
 * The OpenAPI document (docs/architecture.md, "API description and version"): 3.1.0, the service
 * version, every declared route with its scope as a security requirement, and the schemas of the
 * foundation's and the console's routes.
 */
import assert from "node:assert/strict";
import { call, startServer } from "../support/app.ts";
import { EXT, keysEnv } from "../support/keys.ts";

Deno.test("OpenAPI document: 3.1.0, version 0.4.0, every route with its scope and schemas", async () => {
  const s = await startServer(keysEnv());
  try {
    const r = await call(`${s.url}/v1/openapi.json`, { headers: { "x-api-key": EXT } });
    assert.equal(r.status, 200);
    type Op = {
      "x-required-scope": string;
      security: Record<string, string[]>[];
      requestBody?: { content: Record<string, { schema: unknown }> };
      parameters?: { name: string; in: string; schema: Record<string, unknown> }[];
      responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
    };
    const doc = r.body as {
      openapi: string;
      info: { version: string };
      components: {
        securitySchemes: Record<string, Record<string, string>>;
        schemas: Record<string, unknown>;
      };
      paths: Record<string, Record<string, Op>>;
    };
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.info.version, "0.4.0");
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
      "ApiKey",
      "Bearer",
      "StreamToken",
    ]);
    assert.deepEqual(doc.components.securitySchemes.ApiKey, {
      type: "apiKey",
      in: "header",
      name: "X-API-Key",
    });
    // Every declared route is in the document, with its scope as a security requirement.
    const specs = s.bridge.ctx.routes.specs;
    for (const spec of specs) {
      const op = doc.paths[spec.path]?.[spec.method];
      const where = `${spec.method.toUpperCase()} ${spec.path}`;
      assert.ok(op, `${where} missing`);
      assert.equal(op["x-required-scope"], spec.access, where);
      const want = spec.access === "open"
        ? []
        : spec.access === "stream"
        ? [{ StreamToken: [] }]
        : [{ ApiKey: [] }, {
          Bearer: [spec.access === "process" ? "process:run" : "forecast:write"],
        }];
      assert.deepEqual(op.security, want, where);
      if (spec.access !== "open") {
        for (const status of ["401", "429", "503"]) assert.ok(op.responses[status], where);
      }
      if (spec.access === "process" || spec.access === "external") {
        assert.ok(op.responses["403"], where);
      }
    }
    // The routes of the foundation and the console: request and response schemas.
    const ours = Object.entries(doc.paths).filter(([p]) =>
      p === "/health" || p === "/v1/openapi.json" || p.startsWith("/v1/console/")
    );
    assert.equal(ours.length, 12); // with /v1/console/passes and /v1/console/forecast-models
    for (const [path, ops] of ours) {
      for (const [method, op] of Object.entries(ops)) {
        const ok = op.responses["200"];
        const media = Object.values(ok?.content ?? {});
        assert.ok(media.length === 1 && media[0].schema, `${method} ${path}: 200 schema`);
      }
    }
    const put = doc.paths["/v1/console/config"].put;
    // Request and response bodies are named schemas of components.schemas.
    const deref = (schema: unknown) => {
      const ref = (schema as { $ref?: string }).$ref;
      return ref ? doc.components.schemas[ref.replace("#/components/schemas/", "")] : schema;
    };
    const bodySchema = deref(put.requestBody!.content["application/json"].schema) as {
      properties: Record<string, unknown>;
      additionalProperties: boolean;
    };
    assert.ok("sftp_password" in bodySchema.properties);
    assert.ok(!("process_api_keys" in bodySchema.properties));
    assert.equal(bodySchema.additionalProperties, false);
    assert.ok(put.responses["422"]);
    const params = doc.paths["/v1/console/events"].get.parameters!;
    assert.deepEqual(params.map((p) => [p.in, p.name, p.schema.type]), [
      ["query", "limit", "integer"],
      ["query", "after_id", "integer"],
      ["query", "kind", "array"],
      ["query", "level", "array"],
      ["query", "delivery_day", "string"],
      ["query", "caller", "string"],
    ]);
    assert.deepEqual([params[0].schema.minimum, params[0].schema.maximum], [1, 1000]);
    // Bodies that are not JSON: the CSV upload and the CSV data delivery.
    const ingest = doc.paths["/v1/forecasts"].post.requestBody!.content;
    assert.deepEqual(Object.keys(ingest).sort(), ["application/json", "text/csv"]);
    assert.match(JSON.stringify(ingest["text/csv"].schema), /market_location_id,start,kw/);
    const delivery = doc.paths["/v1/delivery-days/{day}/open-position"].get.responses["200"];
    assert.deepEqual(Object.keys(delivery.content ?? {}).sort(), ["application/json", "text/csv"]);
    const stream = doc.paths["/v1/console/events/stream"].get;
    assert.ok(stream.responses["200"].content?.["text/event-stream"]);
  } finally {
    await s.close();
  }
});
