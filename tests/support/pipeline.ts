/**
 * Shared fixtures of the pipeline tests over HTTP: keys, the app's environment with two active
 * control areas, and helpers to register market locations and post forecasts.
 * @module
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { call, type TestServer } from "./app.ts";
import { EXT, PROC } from "./keys.ts";
import { AREAS } from "./portfolio.ts";

export { EXT, PROC } from "./keys.ts";
export { csvDay, flat } from "./forecast_data.ts";
/** Service environment: both keys, no rate limit, Amprion and TenneT active. */
export const env = {
  PROCESS_API_KEYS: `ops:${PROC}`,
  EXTERNAL_API_KEYS: `acme:${EXT}`,
  RATE_LIMIT_PER_MINUTE: "0",
  ACTIVE_CONTROL_AREAS: `${AREAS.amprion},${AREAS.tennet}`,
};
/** JSON request headers with the external key. */
export const ext = { "x-api-key": EXT, "content-type": "application/json" };
/** JSON request headers with the process key. */
export const proc = { "x-api-key": PROC, "content-type": "application/json" };
/** One item of a 422 body (docs/architecture.md, "Errors"). */
export type Item = {
  loc: unknown[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
};

/** A clock two days before the given day, 08:00 UTC (before gate closure). */
export const clockFor = (day: string) =>
  new FakeClock(Date.parse(`${day}T08:00:00Z`) - 2 * 86_400_000);

/** Registers (PUT) one market location with the external key; asserts 200/201. */
export async function register(
  s: TestServer,
  id: string,
  body: Record<string, unknown>,
): Promise<void> {
  const r = await call(`${s.url}/v1/market-locations/${id}`, {
    method: "PUT",
    headers: ext,
    body: JSON.stringify(body),
  });
  assert.ok(r.status === 201 || r.status === 200, JSON.stringify(r.body));
}

/** POST /v1/forecasts with a JSON value (stringified) or a text body as given. */
export const post = (s: TestServer, body: unknown, headers: Record<string, string> = ext) =>
  call(`${s.url}/v1/forecasts`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
