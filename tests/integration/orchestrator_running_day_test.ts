/**
 * The orchestrator covers the running day (docs/intraday.md, "Orchestrator"): with the JSON market
 * submission, a day past gate closure still gets its forecast, aggregate and CSV every time its
 * input changes — on the day itself too — but no submission and no refusal event; the platform
 * is not asked again.
 *
 * Real parts: the app on a temp-file KV over HTTP, the market-platform simulator over TLS, the
 * injected clock.
 */
import assert from "node:assert/strict";
import { storedEvents } from "../support/app.ts";
import {
  BEFORE_GC,
  DAY,
  forDay,
  orchestrate,
  portfolio,
  postForecast,
  rig,
} from "../support/day_ahead_rig.ts";

type Pass = { days: { delivery_day: string; ran: string[]; failed?: unknown }[] };

Deno.test("orchestrator: past gate closure the JSON submission is skipped without a word; the running day is worked on", async () => {
  const r = await rig(BEFORE_GC, { ORCHESTRATOR_HORIZON_DAYS: "1" });
  try {
    await portfolio(r.s);
    const ranFor = async () =>
      ((await orchestrate(r.s)).body as Pass).days.find((d) => d.delivery_day === DAY);
    assert.deepEqual((await ranFor())?.ran, ["forecast", "aggregate", "publish", "submit"]);
    assert.equal(forDay(r.sim, DAY).length, 1);

    r.clock.set(Date.parse("2026-11-22T11:30:00Z")); // 12:30 Berlin, after gate closure
    await postForecast(r.s, 1, DAY, Array(96).fill(150));
    const after = await ranFor();
    assert.deepEqual(after?.ran, ["forecast", "aggregate", "publish"]);
    assert.equal(after?.failed, undefined);

    r.clock.set(Date.parse("2026-11-23T09:00:00Z")); // 10:00 Berlin on the day
    await postForecast(r.s, 2, DAY, Array(96).fill(250));
    assert.deepEqual((await ranFor())?.ran, ["forecast", "aggregate", "publish"]);
    assert.equal((await orchestrate(r.s)).status, 200);

    assert.equal(forDay(r.sim, DAY).length, 1, "the platform was not asked again");
    const refusals = (await storedEvents(r.s.kv)).filter((e) =>
      e.kind === "orchestration_error" && e.delivery_day === DAY
    );
    assert.deepEqual(refusals, []);
  } finally {
    await r.close();
  }
});
