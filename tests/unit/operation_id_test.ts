/**
 * Derived `operationId`s (lib/http/operation_id.ts) and the route table's refusal of two routes
 * with one name (docs/architecture.md, "API description and version").
 */
import assert from "node:assert/strict";
import { Hono } from "hono";
import { deriveOperationId } from "../../lib/http/operation_id.ts";
import { type Handler, RouteTable } from "../../lib/http/route_table.ts";
import type { AppEnv } from "../../lib/http/env.ts";

Deno.test("operationId: method + path words in camelCase, an item in the singular", () => {
  const cases: [string, string, string][] = [
    ["get", "/v1/delivery-days/{day}/schedules/{control_area}", "getDeliveryDaySchedule"],
    [
      "GET",
      "/v1/delivery-days/{day}/schedules/{control_area}/versions",
      "getDeliveryDayScheduleVersions",
    ],
    ["put", "/v1/market-locations", "putMarketLocations"],
    ["delete", "/v1/market-locations/{malo_id}", "deleteMarketLocation"],
    ["post", "/v1/console/stream-token", "postConsoleStreamToken"],
    ["get", "/v1/openapi.json", "getOpenapiJson"],
    ["get", "/health", "getHealth"],
    ["get", "/metrics", "getMetrics"],
    ["get", "/v1/passes/{id}", "getPass"],
    ["get", "/v1/entries/{id}", "getEntry"],
    ["get", "/v1/status/{x}", "getStatus"],
    ["get", "/static/build/{file}", "getStaticBuild"],
  ];
  for (const [method, path, want] of cases) assert.equal(deriveOperationId(method, path), want);
});

Deno.test("route table: a second route with the same operationId is refused, naming both", () => {
  const table = new RouteTable(new Hono<AppEnv>(), (_spec, h) => h);
  const ok: Handler = (c) => c.text("ok");
  const base = { access: "open" as const, summary: "s", responses: { 200: { description: "ok" } } };
  table.add({ ...base, method: "get", path: "/v1/passes/{id}" }, ok);
  assert.throws(
    () => table.add({ ...base, method: "get", path: "/v1/passes/{pass}/" }, ok),
    /GET \/v1\/passes\/\{pass\}\/ has the operationId getPass of GET \/v1\/passes\/\{id\}/,
  );
  // A declared name resolves the clash.
  table.add(
    { ...base, method: "get", path: "/v1/passes/{pass}/", operationId: "getPassAgain" },
    ok,
  );
  assert.equal(table.specs.length, 2);
});
