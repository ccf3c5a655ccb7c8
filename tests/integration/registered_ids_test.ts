/**
 * The in-memory index of registered MaLo-IDs (docs/pipeline.md, "Market locations"): forecast
 * uploads and batch registrations answer exactly as the stored market locations say — while the
 * index is being built, once it is built, after this process changes master data, and after
 * another process (a second handle on the same KV file) does.
 */
import assert from "node:assert/strict";
import { call, startServer, type TestServer } from "../support/app.ts";
import { clockFor, env, ext, flat, type Item, post } from "../support/pipeline.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { marketLocationIndexSettled } from "../../lib/pipeline/master_data.ts";
import {
  deleteMarketLocation,
  listMarketLocations,
  putMarketLocations,
} from "../../lib/pipeline/market_locations.ts";
import { expectedTable, storedTable } from "../support/profile_portfolio.ts";

const day = "2026-11-23";
const location = (n: number) => ({
  malo_id: maloId(n),
  control_area: AREAS.amprion,
  direction: "consumption" as const,
  standard_load_profile: "H0" as const,
  annual_kwh: 1000 + n,
});
const forecast = (n: number) => ({
  market_location_id: maloId(n),
  delivery_day: day,
  unit: "kW",
  values: flat(96, 1),
});

/** The MaLo-IDs a forecast batch for locations `ns` is refused for as not registered. */
async function refusedAsUnknown(s: TestServer, ns: number[]): Promise<string[]> {
  const r = await post(s, { forecasts: ns.map(forecast) });
  if (r.status === 200) return [];
  assert.equal(r.status, 422, JSON.stringify(r.body));
  return (r.body as { detail: Item[] }).detail
    .filter((i) => i.type === "value_error.unknown_market_location")
    .map((i) => i.input as string);
}

async function registerBatch(s: TestServer, ns: number[]): Promise<Record<string, number>> {
  const r = await call(`${s.url}/v1/market-locations`, {
    method: "PUT",
    headers: ext,
    body: JSON.stringify({ market_locations: ns.map(location) }),
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as Record<string, number>;
}

Deno.test("registered MaLo-IDs: forecast uploads are told right while the index is built, once built, and after this process registers and deletes", async () => {
  const s = await startServer(env, { clock: clockFor(day) });
  try {
    await registerBatch(s, [1, 2]);
    // The first lookups may come before the index is built: they read the store.
    assert.deepEqual(await refusedAsUnknown(s, [1, 2, 3]), [maloId(3)]);
    await marketLocationIndexSettled(s.bridge.ctx.kv);
    assert.deepEqual(await refusedAsUnknown(s, [1, 2, 3]), [maloId(3)]);
    // This process's changes move the index along.
    assert.deepEqual(await registerBatch(s, [3, 4]), { created: 2, replaced: 0, unchanged: 0 });
    assert.deepEqual(await refusedAsUnknown(s, [1, 2, 3, 4]), []);
    const del = await call(`${s.url}/v1/market-locations/${maloId(2)}`, {
      method: "DELETE",
      headers: ext,
    });
    assert.equal(del.status, 204);
    assert.deepEqual(await refusedAsUnknown(s, [1, 2, 3, 4]), [maloId(2)]);
    const one = await call(`${s.url}/v1/market-locations/${maloId(5)}`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ control_area: AREAS.tennet, direction: "generation" }),
    });
    assert.equal(one.status, 201);
    assert.deepEqual(await refusedAsUnknown(s, [1, 2, 5]), [maloId(2)]);
  } finally {
    await s.close();
  }
});

Deno.test("registered MaLo-IDs: after another process registers and deletes, forecast uploads and batch registrations still see the store", async () => {
  const s = await startServer(env, { clock: clockFor(day) });
  const other = await Deno.openKv(s.kvPath); // a second replica on the same file
  try {
    await registerBatch(s, [1, 2]);
    await refusedAsUnknown(s, [1]);
    await marketLocationIndexSettled(s.bridge.ctx.kv);
    const at = Date.parse(`${day}T00:00:00Z`) - 86_400_000;
    await putMarketLocations(other, [location(3), location(4)], at);
    assert.equal(await deleteMarketLocation(other, maloId(1), at), true);
    // The index is behind: the answers come from the store, and the index is built again.
    assert.deepEqual(await refusedAsUnknown(s, [1, 2, 3, 4]), [maloId(1)]);
    await marketLocationIndexSettled(s.bridge.ctx.kv);
    assert.deepEqual(await refusedAsUnknown(s, [1, 2, 3, 4]), [maloId(1)]);

    // A batch naming a location the other process registered meanwhile: not "created" twice,
    // and the class table counts it once.
    await putMarketLocations(other, [location(6)], at);
    assert.deepEqual(await registerBatch(s, [6, 7]), { created: 1, replaced: 0, unchanged: 1 });
    const listed = (await listMarketLocations(s.kv)).map(({ updated_at: _, ...l }) => l);
    assert.deepEqual(listed.map((l) => l.malo_id), [2, 3, 4, 6, 7].map(maloId));
    assert.deepEqual(await storedTable(s.kv), expectedTable(listed));
  } finally {
    other.close();
    await s.close();
  }
});
