/**
 * The OpenAPI document meets Redocly's recommended rules that customers' client generators lean
 * on (docs/architecture.md, "API description and version"): every operation has a unique,
 * stable `operationId` and at least one 4xx answer, and the document names its licence. Checked
 * here in Deno, so CI needs no npx; `npx -y @redocly/cli@latest lint` on the served document
 * reports 0 warnings (docs/api-clients.md).
 */
import assert from "node:assert/strict";
import { call, rawRequest, startServer } from "../support/app.ts";
import { EXT, keysEnv } from "../support/keys.ts";

type Doc = {
  info: { license?: { name?: string; identifier?: string; url?: string } };
  paths: Record<string, Record<string, { operationId?: string; responses: object }>>;
};

/** The names generated clients already use: renaming one breaks every customer's build. */
const STABLE: Record<string, string> = {
  "get /health": "getHealth",
  "get /v1/openapi.json": "getOpenapiJson",
  "put /v1/market-locations/{malo_id}": "putMarketLocation",
  "get /v1/market-locations": "getMarketLocations",
  "put /v1/market-locations": "putMarketLocations",
  "post /v1/forecasts": "postForecasts",
  "post /v1/delivery-days/{day}/aggregate": "postDeliveryDayAggregate",
  "get /v1/delivery-days/{day}/open-position": "getDeliveryDayOpenPosition",
  "get /v1/delivery-days/{day}/schedules/{control_area}": "getDeliveryDaySchedule",
  "put /v1/console/config": "putConsoleConfig",
  "get /v1/console/events/stream": "getConsoleEventsStream",
};

Deno.test("OpenAPI: every operation has a unique camelCase operationId and a 4xx answer; a licence", async () => {
  const s = await startServer(keysEnv());
  try {
    const r = await call(`${s.url}/v1/openapi.json`, { headers: { "x-api-key": EXT } });
    assert.equal(r.status, 200);
    const doc = r.body as Doc;
    assert.ok(doc.info.license?.name, "info.license.name");
    assert.ok(doc.info.license.identifier || doc.info.license.url, "licence identifier or url");

    const seen = new Map<string, string>();
    let operations = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method} ${path}`;
        operations++;
        const id = op.operationId;
        assert.ok(id && /^[a-z]+[A-Z][A-Za-z0-9]*$/.test(id), `${where}: operationId ${id}`);
        assert.ok(!seen.has(id), `${where}: operationId ${id} also on ${seen.get(id)}`);
        seen.set(id, where);
        const fourXX = Object.keys(op.responses).filter((status) => /^4(\d\d|XX)$/.test(status));
        assert.ok(fourXX.length > 0, `${where}: no 4xx answer`);
        if (where in STABLE) assert.equal(id, STABLE[where], where);
      }
    }
    assert.equal(operations, s.bridge.ctx.routes.specs.length);
    for (const where of Object.keys(STABLE)) assert.ok(seen.has(STABLE[where]), where);
  } finally {
    await s.close();
  }
});

Deno.test("OpenAPI: the 413 every operation lists is answered, also by an open GET route", async () => {
  const s = await startServer(keysEnv({ MAX_REQUEST_BYTES: "1024" }));
  try {
    const head = (length: number) =>
      new TextEncoder().encode(
        `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${length}\r\n` +
          "Connection: close\r\n\r\n",
      );
    assert.equal(await rawRequest(s.url, head(1_000_000)), 413);
    assert.equal(await rawRequest(s.url, head(0)), 200);
  } finally {
    await s.close();
  }
});
