/**
 * An anomaly before gate closure, then a newer aggregate (docs/fahrplan.md, "Day state and staleness"): the TSO reports an ANO for one control area; the
 * customer sends a corrected forecast; the orchestrator's next pass aggregates and hands over
 * version 2 for every area (same message identification); the TSO confirms it, and the late
 * answers to version 1 do not overwrite version 2's status. Without a newer aggregate the
 * orchestrator sends nothing again and the anomaly stays on the day for the operator.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, the outbox and inbox on disk, the
 * TSO simulator (dev/tso_simulator.ts), the injected clock.
 */
import assert from "node:assert/strict";
import { startTsoSimulator } from "../../dev/tso_simulator.ts";
import { call } from "../support/app.ts";
import {
  orchestrate,
  postForecast,
  proc,
  putLocation,
  rig,
  step,
} from "../support/day_ahead_rig.ts";
import { FILES_CHANNEL_ENV } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";

type Sched = { control_area: string; tso_status: string; version: number; reason_text: string };

Deno.test("an anomaly before gate closure is answered by the next version once a newer aggregate exists", async () => {
  const day = "2026-11-25";
  const inbox = await Deno.makeTempDir({ prefix: "bridge-inbox-" });
  const r = await rig("2026-11-24T06:00:00Z", {
    ...FILES_CHANNEL_ENV,
    ACTIVE_CONTROL_AREAS: `${AREAS.amprion},${AREAS.tennet}`,
    SCHEDULE_INBOX_DIR: inbox,
  });
  const schedules = async () => {
    await call(`${r.s.url}/v1/schedule-responses/import`, { method: "POST", headers: proc });
    const o = await call(`${r.s.url}/v1/console/delivery-days`, { headers: proc });
    const d = (o.body as { delivery_days: { delivery_day: string; schedules: Sched[] }[] })
      .delivery_days.find((x) => x.delivery_day === day);
    return new Map((d?.schedules ?? []).map((x) => [x.control_area, x]));
  };
  /** Imports until `ok` holds for the schedules (the simulator answers from its own poll). */
  const until = async (ok: (s: Map<string, Sched>) => boolean) => {
    for (let i = 0; i < 150; i++) {
      const s = await schedules();
      if (ok(s)) return s;
      await new Promise((res) => setTimeout(res, 20));
    }
    assert.fail(`not reached: ${JSON.stringify([...(await schedules()).values()])}`);
  };
  let tsos = startTsoSimulator({
    outbox: r.outbox,
    inbox,
    mismatchAreas: [AREAS.tennet],
    pollMs: 20,
  });
  try {
    await putLocation(r.s, 1, { control_area: AREAS.amprion, direction: "consumption" });
    await putLocation(r.s, 2, { control_area: AREAS.tennet, direction: "consumption" });
    await postForecast(r.s, 1, day, Array(96).fill(1_000));
    await postForecast(r.s, 2, day, Array(96).fill(2_000));
    assert.equal((await step(r.s, day, "aggregate")).status, 200);
    assert.equal((await step(r.s, day, "submit")).status, 200);
    const first = await until((s) =>
      s.get(AREAS.tennet)?.tso_status === "anomaly" &&
      s.get(AREAS.amprion)?.tso_status === "confirmed"
    );
    assert.match(first.get(AREAS.tennet)!.reason_text, /differs/);

    // No newer aggregate: the pass has nothing to send, the anomaly stays for the operator.
    await orchestrate(r.s);
    assert.equal((await schedules()).get(AREAS.tennet)?.tso_status, "anomaly");
    const files = () =>
      [...Deno.readDirSync(r.outbox)].map((f) => f.name).filter((f) => /_00\d\.xml$/.test(f));
    assert.equal(files().filter((f) => f.endsWith("_002.xml")).length, 0, files().join());

    // The TSO's matching is fixed on its side; the customer sends a corrected forecast.
    await tsos.close();
    await postForecast(r.s, 2, day, Array(96).fill(2_500));
    const pass = await orchestrate(r.s);
    assert.equal(pass.status, 200, JSON.stringify(pass.body));
    assert.equal(files().filter((f) => f.endsWith("_002.xml")).length, 2, files().join());
    tsos = startTsoSimulator({ outbox: r.outbox, inbox, pollMs: 20 }); // answers v1 and v2 again
    const second = await until((s) =>
      [...s.values()].length === 2 &&
      [...s.values()].every((x) => x.tso_status === "confirmed" && x.version === 2)
    );
    assert.equal(second.get(AREAS.tennet)!.reason_text, null);
    // Late answers to version 1 (the restarted simulator answered those files too) changed nothing.
    await new Promise((res) => setTimeout(res, 100));
    const after = await schedules();
    assert.ok([...after.values()].every((x) => x.version === 2 && x.tso_status === "confirmed"));
  } finally {
    await tsos.close();
    await r.close();
    await Deno.remove(inbox, { recursive: true }).catch(() => {});
  }
});
