/**
 * The service within the limits of a self-hosted `denokv` over KV Connect (docs/kv.md, "Limits
 * that matter"): at most 10 checks per atomic write (denokv `proto/limits.rs` `MAX_CHECKS`; Deno's
 * local store and Deno Deploy allow 100), which the engine refuses with `TooManyChecks`. With
 * 13 open delivery days, a single registration (which marks the open days stale) and a forecast
 * upload for 12 days in one request (which bumps each day's input version) are stored, and no
 * atomic write the peer saw had more than 10 checks.
 */
import assert from "node:assert/strict";
import { spawnService } from "../support/service_process.ts";
import { env, ext, flat, proc } from "../support/pipeline.ts";
import { call } from "../support/app.ts";
import { startKvConnect } from "../support/kv_connect.ts";
import { location } from "../support/profile_portfolio.ts";
import { addDays, localDayOf, quarterHourCount } from "../../lib/domain/delivery_day.ts";

Deno.test("KV Connect: with 13 open days a registration and a 12-day forecast upload are stored, every atomic within 10 checks", async () => {
  const peer = await startKvConnect();
  const outbox = await Deno.makeTempDir({ prefix: "bridge-kvc-limits-" });
  const s = await spawnService({
    ...env,
    ...peer.serviceEnv,
    OUTBOX_DIR: outbox,
    ORCHESTRATOR_HORIZON_DAYS: "12",
  }, { kvPath: peer.url });
  try {
    const put = (n: number) => {
      const { malo_id, ...body } = location(n);
      return call(`${s.url}/v1/market-locations/${malo_id}`, {
        method: "PUT",
        headers: ext,
        body: JSON.stringify(body),
      });
    };
    assert.equal((await put(1)).status, 201);
    const pass = await call(`${s.url}/v1/orchestrate`, { method: "POST", headers: proc });
    assert.equal(pass.status, 200, JSON.stringify(pass.body));
    const ran = (pass.body as { days: { delivery_day: string }[] }).days;
    assert.ok(ran.length >= 12, `open days: ${JSON.stringify(pass.body)}`);

    const second = await put(2);
    assert.equal(second.status, 201, JSON.stringify(second.body));

    const today = localDayOf(Date.now());
    const days = Array.from({ length: 12 }, (_, k) => addDays(today, 1 + k));
    const upload = await call(`${s.url}/v1/forecasts`, {
      method: "POST",
      headers: ext,
      body: JSON.stringify({
        forecasts: days.map((d) => ({
          market_location_id: location(1).malo_id,
          delivery_day: d,
          unit: "kW",
          values: flat(quarterHourCount(d), 2),
        })),
      }),
    });
    assert.equal(upload.status, 200, JSON.stringify(upload.body));
    const after = await call(`${s.url}/v1/orchestrate`, { method: "POST", headers: proc });
    const again = (after.body as { days: { delivery_day: string }[] }).days.map((d) =>
      d.delivery_day
    );
    for (const d of days) assert.ok(again.includes(d), `${d} not run again after its new input`);

    const { largest_atomic } = await peer.stats();
    assert.ok(largest_atomic.checks <= 10, JSON.stringify(largest_atomic));
    assert.ok(largest_atomic.checks >= 5, JSON.stringify(largest_atomic)); // checks were counted
  } finally {
    await s.close();
    await peer.close();
    await Deno.remove(outbox, { recursive: true });
  }
});
