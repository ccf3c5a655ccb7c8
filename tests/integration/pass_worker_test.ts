/**
 * The forecast step and aggregation run in a Worker with its own KV handle on the app's store
 * file (lib/pipeline/pass_offload.ts, docs/architecture.md, "Heavy work off the request thread"):
 * the answers, the stored aggregate, the day's steps and the events are the same as when they run
 * in the request thread (`PIPELINE_WORKER=0`); a store the worker cannot share runs them in the
 * request thread. Real parts: two apps on temp-file KV over HTTP on 127.0.0.1, the Worker.
 */
import assert from "node:assert/strict";
import { isLocalStoreFile } from "../../lib/pipeline/pass_offload.ts";
import { call, startServer, storedEvents, type TestServer } from "../support/app.ts";
import { clockFor, env, flat, post, proc, register } from "../support/pipeline.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

const DAY = "2026-10-25"; // 100 quarter-hours

async function runDay(s: TestServer) {
  for (let i = 1; i <= 40; i++) {
    await register(s, maloId(i), {
      control_area: i % 2 ? AREAS.amprion : AREAS.tennet,
      direction: i % 5 === 0 ? "generation" : "consumption",
      ...(i % 7 === 3
        ? {}
        : { standard_load_profile: i % 3 ? "H0" : "G25", annual_kwh: 1_000 * i }),
    });
  }
  for (const i of [3, 4, 10]) {
    const r = await post(s, {
      market_location_id: maloId(i),
      delivery_day: DAY,
      unit: "kW",
      values: flat(100, i),
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  }
  const step = (name: string) =>
    call(`${s.url}/v1/delivery-days/${DAY}/${name}`, { method: "POST", headers: proc });
  const forecast = await step("forecast");
  const aggregate = await step("aggregate");
  const again = await step("forecast");
  const stored = (await s.kv.get(["aggregates", DAY])).value as Record<string, unknown>;
  const events = (await storedEvents(s.kv))
    .filter((e) => e.kind === "forecasts_generated" || e.kind === "positions_aggregated")
    .map((e) => [e.kind, e.message, e.data]);
  return { forecast, aggregate, again, stored, events };
}

Deno.test("pipeline worker: forecast and aggregation in the Worker answer and store exactly what the request thread does", async () => {
  const inWorker = await startServer(env, { clock: clockFor(DAY) });
  const inThread = await startServer({ ...env, PIPELINE_WORKER: "0" }, { clock: clockFor(DAY) });
  try {
    assert.ok(inWorker.bridge.ctx.passOffload, "a local store file: the worker is used");
    assert.equal(inThread.bridge.ctx.passOffload, undefined);
    const [a, b] = [await runDay(inWorker), await runDay(inThread)];
    assert.equal(a.forecast.status, 200, JSON.stringify(a.forecast.body));
    assert.equal(a.aggregate.status, 200, JSON.stringify(a.aggregate.body));
    assert.deepEqual(a.forecast.body, b.forecast.body);
    assert.deepEqual(a.again.body, b.again.body);
    assert.deepEqual(a.aggregate.body, b.aggregate.body);
    const { computed_at: _a, ...storedA } = a.stored;
    const { computed_at: _b, ...storedB } = b.stored;
    assert.deepEqual(storedA, storedB);
    assert.deepEqual(a.events, b.events);
    assert.equal(
      (a.aggregate.body as { counts: { market_locations: number } }).counts.market_locations,
      36, // 34 with a profile, and 2 of the 6 without one have a customer forecast
    );
  } finally {
    await inWorker.close();
    await inThread.close();
  }
});

Deno.test("pipeline worker: only for a store file a second handle can open", () => {
  assert.equal(isLocalStoreFile("./data/bridge.kv"), true);
  assert.equal(isLocalStoreFile(":memory:"), false);
  assert.equal(isLocalStoreFile(""), false); // Deno Deploy's managed KV
  assert.equal(isLocalStoreFile("https://api.deno.com/databases/x/connect"), false);
});
