/**
 * Intraday versions over the market platform (`schedule_channel=platform`, ESS and CIM;
 * docs/intraday.md): the same rules as the files channel — a day-ahead version, a version after
 * the TSO deadline acknowledged at once and confirmed only from 18:00, a version on the day with
 * its quarter-hours inside the lead time frozen — with the platform simulator keeping the TSO's
 * rules on the service's clock, driven by the orchestrator's ticks (send, then poll).
 *
 * Real parts: the app on a temp-file KV over HTTP, the market-platform simulator over TLS, the
 * orchestrator's tick, the injected clock.
 */
import assert from "node:assert/strict";
import { XMLParser } from "fast-xml-parser";
import { receivedSchedule } from "../../dev/tso_rules.ts";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { frozenCount } from "../../lib/domain/deadlines.ts";
import { versionHistory } from "../../lib/fahrplan/history.ts";
import { platformDocumentsRig, postForecast, putLocation } from "../support/day_ahead_rig.ts";
import { AREAS } from "../support/portfolio.ts";

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  removeNSPrefix: true,
});
const DAY = "2027-03-28"; // 92 quarter-hours
const berlin = (date: string, hhmm: string) =>
  Temporal.PlainDate.from(date).toZonedDateTime({
    timeZone: "Europe/Berlin",
    plainTime: Temporal.PlainTime.from(hhmm),
  }).epochMilliseconds;

for (const format of ["ess", "cim"] as const) {
  Deno.test(`platform channel (${format}): day-ahead, after the deadline, and on the day with frozen quarter-hours`, async () => {
    const r = await platformDocumentsRig(
      new Date(berlin("2027-03-26", "09:00")).toISOString(),
      format,
    );
    const tick = () => r.s.bridge.orchestrator.tick("replica-a");
    const at = (date: string, hhmm: string) => r.clock.set(berlin(date, hhmm));
    const history = () => versionHistory(r.s.kv, DAY, AREAS.amprion);
    const sent = (v: number) => {
      const d = r.sim.documents().find((x) =>
        x.message_version === v && x.idempotency_key.startsWith(DAY) &&
        x.control_area === AREAS.amprion
      )!;
      return receivedSchedule(parser.parse(d.xml))!.qty;
    };
    const n = 92;
    try {
      await putLocation(r.s, 1, { control_area: AREAS.amprion, direction: "consumption" });
      await putLocation(r.s, 2, { control_area: AREAS.tennet, direction: "generation" });
      await postForecast(r.s, 1, DAY, Array(n).fill(1_000));
      await postForecast(r.s, 2, DAY, Array(n).fill(500));
      await tick(); // the pass sends version 1
      r.clock.advance(60_000);
      await tick(); // the poll finds it acknowledged
      r.clock.advance(60_000);
      await tick(); // … and confirmed
      let h = await history();
      assert.deepEqual(h.map((x) => `${x.version} ${x.phase} ${x.tso_status}`), [
        "1 day_ahead confirmed",
      ]);

      // 16:00 the day before: acknowledged at once, confirmed only from 18:00.
      at("2027-03-27", "16:00");
      await postForecast(r.s, 1, DAY, Array(n).fill(2_000));
      await tick();
      for (const m of ["16:01", "16:02", "17:59"]) {
        at("2027-03-27", m);
        await tick();
      }
      h = await history();
      assert.deepEqual([h[1].version, h[1].phase, h[1].tso_status], [
        2,
        "intraday",
        "acknowledged",
      ]);
      // TenneT's position did not change: no intraday version for it, and the step says why.
      const tennet = await versionHistory(r.s.kv, DAY, AREAS.tennet);
      assert.deepEqual(tennet.map((x) => x.version), [1]);
      const state = await r.s.kv.get<{ steps: { submitted: { detail: Record<string, unknown> } } }>(
        ["days", DAY],
      );
      const unchanged = state.value!.steps.submitted.detail.unchanged as { control_area: string }[];
      assert.deepEqual(unchanged.map((u) => u.control_area), [AREAS.tennet]);
      at("2027-03-27", "18:00");
      await tick();
      assert.equal((await history())[1].tso_status, "confirmed");

      // 09:07 on the day (CEST): quarter-hours before 09:30 frozen at version 2.
      at(DAY, "09:07");
      const f = frozenCount(deliveryDay(DAY), r.clock.now(), 15);
      await postForecast(r.s, 1, DAY, Array(n).fill(3_000));
      await tick();
      for (const m of ["09:08", "09:09"]) {
        at(DAY, m);
        await tick();
      }
      h = await history();
      assert.deepEqual([h[2].version, h[2].tso_status], [3, "confirmed"], JSON.stringify(h[2]));
      const [v2, v3] = [sent(2), sent(3)];
      assert.equal(v3[0].length, n);
      assert.deepEqual(v3[0].slice(0, f), v2[0].slice(0, f));
      assert.deepEqual(v3[0].slice(f), Array(n - f).fill(3));
      assert.equal(h[2].frozen_before, deliveryDay(DAY).quarterHours[f].toString());
    } finally {
      await r.close();
    }
  });
}
