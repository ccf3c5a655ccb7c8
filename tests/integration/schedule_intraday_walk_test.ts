/**
 * One delivery day from D-2 to its end on the `files` channel (docs/intraday.md), on a fake clock
 * with the TSO simulator keeping the TSO's rules: the day-ahead version before 14:30; an update at
 * 16:00 the day before (all quarter-hours open, confirmed only from 18:00); updates at 09:07 and
 * 21:52 on the day (quarter-hours before 09:30 and 22:15 frozen, byte-equal to the version the TSO
 * has); a rejected version and what the next one freezes to; an update that touches only frozen
 * quarter-hours sends nothing; the last quarter-hour; then forecasts are refused. On a 96-, the
 * 92- and the 100-quarter-hour day.
 *
 * Real parts: the app on a temp-file KV over HTTP, the outbox and inbox on disk, the TSO
 * simulator, the injected clock.
 */
import assert from "node:assert/strict";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { frozenCount } from "../../lib/domain/deadlines.ts";
import { call, storedEvents } from "../support/app.ts";
import { ext, proc } from "../support/day_ahead_rig.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import type { DayOverview } from "../../lib/wire/delivery_days.ts";
import type { ScheduleVersions } from "../../lib/wire/schedules.ts";
import { startWalk } from "../support/intraday_walk.ts";

/** Positions frozen for a version created at the walk's clock (lead 15 minutes). */
const frozenAt = (day: string, nowMs: number) => frozenCount(deliveryDay(day), nowMs, 15);

for (const day of ["2026-11-25", "2027-03-28", "2026-10-25"]) {
  Deno.test(`intraday walk ${day}: day-ahead, intraday versions, frozen quarter-hours, to the end`, async () => {
    const w = await startWalk(
      day,
      (f) => f.endsWith("_004.xml") ? "test: version 4 refused" : null,
    );
    const n = deliveryDay(day).quarterHours.length;
    try {
      // D-2 09:00: the day-ahead version, confirmed at once.
      await w.forecast(1_000);
      await w.pass();
      assert.deepEqual(w.files().map((f) => f.slice(-7)), ["001.xml"]);
      let h = await w.history();
      assert.equal(h.length, 1);
      assert.deepEqual([h[0].phase, h[0].tso_status, h[0].quantities.length], [
        "day_ahead",
        "confirmed",
        n,
      ]);

      // D-1 16:00, after the TSO deadline: every quarter-hour open; ACK now, CNF from 18:00.
      w.at(-1, "16:00");
      await w.forecast(2_000);
      await w.pass();
      h = await w.history();
      assert.deepEqual([h[1].version, h[1].phase, h[1].tso_status], [
        2,
        "intraday",
        "acknowledged",
      ]);
      assert.equal(h[1].frozen_before, deliveryDay(day).start.toString());
      assert.deepEqual(await w.purchase(2), Array(n).fill("2.000"));
      w.at(-1, "18:00");
      await w.answers();
      assert.equal((await w.history())[1].tso_status, "confirmed");

      // D 09:07: quarter-hours before 09:30 frozen at version 2's quantities, byte-equal.
      w.at(0, "09:07");
      const f3 = frozenAt(day, w.r.clock.now());
      await w.forecast(3_000);
      // The running day's pass runs every step, the forecast step (profile values) included.
      assert.deepEqual(await w.pass(), ["forecast", "aggregate", "publish", "submit"]);
      h = await w.history();
      assert.equal(h[2].frozen_before, deliveryDay(day).quarterHours[f3].toString());
      assert.match(
        Temporal.Instant.from(h[2].frozen_before).toZonedDateTimeISO("Europe/Berlin").toString(),
        /T09:30:00/,
      );
      const v2 = await w.purchase(2), v3 = await w.purchase(3);
      assert.deepEqual(v3.slice(0, f3), v2.slice(0, f3));
      assert.deepEqual(v3.slice(f3), Array(n - f3).fill("3.000"));
      assert.equal(h[2].tso_status, "confirmed");

      // D 10:07: version 4 is rejected by the TSO; 10:37: version 5 freezes to version 3.
      w.at(0, "10:07");
      await w.forecast(4_000);
      await w.pass();
      h = await w.history();
      assert.deepEqual([h[3].version, h[3].tso_status, h[3].reason_text], [
        4,
        "rejected",
        "test: version 4 refused",
      ]);
      w.at(0, "10:37");
      const f5 = frozenAt(day, w.r.clock.now());
      await w.forecast(5_000);
      await w.pass();
      const v5 = await w.purchase(5);
      assert.deepEqual(v5.slice(0, f5), v3.slice(0, f5), "frozen at the version the TSO has (3)");
      assert.equal(v5[f5 - 1], "3.000", "10:45 carries version 3's 3 MW, not the rejected 4 MW");
      assert.equal((await w.history())[4].tso_status, "confirmed", "the simulator accepted it");

      // D 11:07: a forecast that changes only frozen quarter-hours sends nothing.
      w.at(0, "11:07");
      const f6 = frozenAt(day, w.r.clock.now());
      await w.forecast(Array.from({ length: n }, (_, i) => (i < f6 ? 9_999 : 5_000)));
      await w.pass();
      assert.equal(w.files().length, 5, w.files().join());
      const quiet = (await storedEvents(w.r.s.kv)).filter((e) =>
        e.kind === "schedules_submitted" && e.delivery_day === day &&
        /No new schedule version/.test(String(e.message))
      );
      assert.equal(quiet.length, 1);
      assert.match(String(quiet[0].message), /differs by 0\.001 MW or more from version 5/);
      // The manual submit step follows the same rules: nothing open changed, nothing written.
      const manual = await call(`${w.r.s.url}/v1/delivery-days/${day}/submit`, {
        method: "POST",
        headers: proc,
      });
      assert.equal(manual.status, 200, JSON.stringify(manual.body));
      const mb = manual.body as { documents: unknown[]; unchanged: { reason: string }[] };
      assert.deepEqual(mb.documents, []);
      assert.match(mb.unchanged[0].reason, /no open quarter-hour \(from .*\) differs/);
      assert.equal(w.files().length, 5);
      // What stays in the frozen quarter-hours: 9.999 MW against version 5's quantities.
      const o = await call(`${w.r.s.url}/v1/console/delivery-days`, { headers: proc });
      const e = (o.body as { delivery_days: DayOverview[] }).delivery_days
        .find((d) => d.delivery_day === day)!.schedules[0];
      const expected = v5.slice(0, f6).reduce((a, q) => a + Math.abs(9.999 - Number(q)) * 0.25, 0);
      assert.ok(expected > 0);
      assert.equal(e.locked_deviation_mwh, Math.round(expected * 1000) / 1000);

      // D 21:52: frozen before 22:15.
      w.at(0, "21:52");
      await w.forecast(6_000);
      await w.pass();
      h = await w.history();
      assert.match(
        Temporal.Instant.from(h[5].frozen_before).toZonedDateTimeISO("Europe/Berlin").toString(),
        /T22:15:00/,
      );
      assert.deepEqual((await w.purchase(6)).slice(-3), ["6.000", "6.000", "6.000"]);

      // D 23:30: only the last quarter-hour (23:45) is open; then the day is over.
      w.at(0, "23:30");
      await w.forecast(7_000);
      await w.pass();
      const v7 = await w.purchase(7);
      assert.deepEqual(v7.slice(-2), ["6.000", "7.000"]);
      assert.equal((await w.history())[6].tso_status, "confirmed");
      w.at(0, "23:45");
      const late = await call(`${w.r.s.url}/v1/forecasts`, {
        method: "POST",
        headers: ext,
        body: JSON.stringify({
          market_location_id: maloId(1),
          delivery_day: day,
          unit: "kW",
          values: Array(n).fill(8_000),
        }),
      });
      assert.equal(late.status, 409);
      assert.match((late.body as { detail: string }).detail, /last quarter-hour started/);
      w.at(0, "23:31");
      await w.pass();
      assert.equal(w.files().length, 7, "no version once no quarter-hour is open");
      // Message versions never went back or repeated.
      assert.deepEqual((await w.history()).map((x) => x.version), [1, 2, 3, 4, 5, 6, 7]);

      // The API: the history, an older version as it was sent, the console's schedule entry.
      const base = `${w.r.s.url}/v1/delivery-days/${day}/schedules/${AREAS.amprion}`;
      const hist = await call(`${base}/versions`, { headers: proc });
      assert.equal(hist.status, 200, JSON.stringify(hist.body));
      const hv = hist.body as ScheduleVersions;
      assert.equal(hv.standing_version, 7);
      assert.deepEqual(hv.standing_quantities?.slice(-2), [6, 7]);
      assert.deepEqual(
        hv.versions.map((x) => `${x.version} ${x.phase} ${x.tso_status}`),
        [
          "1 day_ahead confirmed",
          "2 intraday confirmed",
          "3 intraday confirmed",
          "4 intraday rejected",
          "5 intraday confirmed",
          "6 intraday confirmed",
          "7 intraday confirmed",
        ],
      );
      assert.equal(hv.versions[3].reason_text, "test: version 4 refused");
      assert.ok(!("quantities" in hv.versions[0]));
      const old = await call(`${base}?version=3`, { headers: proc });
      assert.equal(old.status, 200);
      assert.match(String(old.body), /<MessageVersion v="3"\/>/);
      assert.equal(
        (await call(`${base}?version=8`, { headers: proc })).status,
        404,
        "a version never sent",
      );
      const view = await call(`${w.r.s.url}/v1/console/delivery-days`, { headers: proc });
      const entry = (view.body as { delivery_days: DayOverview[] }).delivery_days
        .find((d) => d.delivery_day === day)!.schedules[0];
      assert.deepEqual(
        [entry.version, entry.phase, entry.frozen_before, entry.sent_at],
        [7, "intraday", hv.versions[6].frozen_before, hv.versions[6].sent_at],
      );
    } finally {
      await w.close();
    }
  });
}
