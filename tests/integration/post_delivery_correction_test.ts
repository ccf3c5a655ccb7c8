/**
 * Post-delivery corrections on the files channel (docs/post-delivery.md), on a fake clock, in ESS
 * and CIM: a Friday delivery in Amprion (corrections until Mon 30 Nov 2026 16:00 Berlin), its
 * day-ahead version, actuals and the reBAP; `GET …/post-delivery` against a hand computation; a
 * correction "from actuals" at 15:59 Monday goes out as version 2 (the CIM one valid against
 * ENTSO-E's XSD, the ESS one shaped like the real sample), the TSO simulator acknowledges and
 * confirms it, the version history says `post_delivery`, one event tells it, and the settlement
 * (`GET …/settlement`) uses it; a correction the TSO rejects does not count; at 16:01 the next
 * one is refused in words naming the deadline and Amprion's rule.
 */
import assert from "node:assert/strict";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import type { PostDelivery } from "../../lib/wire/post_delivery.ts";
import type { DaySettlement } from "../../lib/wire/settlement.ts";
import { rebapFile } from "../../dev/metering_simulator.ts";
import { call, storedEvents } from "../support/app.ts";
import { ext, proc } from "../support/day_ahead_rig.ts";
import { assertCimValid, elementPaths, fixture, PARTIES } from "../support/fahrplan.ts";
import { startWalk, TSO } from "../support/intraday_walk.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

const DAY = "2026-11-27"; // a Friday
const ESS_SAMPLE = "20241022_TPS_11X0-1111-0762-I_10XDE-AOE-HTCC-C_001.xml";
const json = { ...proc, "content-type": "application/json" };

/** kWh metered in quarter-hour `i`: 150, 200, … 500, again (0.6 to 2 MW). */
const kwhAt = (i: number) => 150 + (i % 8) * 50;

/** The day's reBAP rows of the file, by hand: [short, long] EUR/MWh. */
function pricesByHand(text: string): [number, number][] {
  const num = (t: string) => Number(t.replaceAll(".", "").replace(",", "."));
  return text.split("\n").filter((l) => l.startsWith("27.11.2026;")).map((l) => {
    const c = l.split(";");
    return [num(c[5]), num(c[6])];
  });
}

const close = (a: number | null | undefined, b: number, what: string, tol = 1e-6) =>
  assert.ok(a !== null && a !== undefined && Math.abs(a - b) <= tol, `${what}: ${a} ≠ ${b}`);

for (const format of ["ess", "cim"] as const) {
  Deno.test(`post-delivery (${format}): proposal by hand, correction at 15:59 Monday confirmed and settled, 16:01 refused`, async () => {
    const third = (f: string) => f.endsWith("_003.xml") ? "the test's TSO refuses v3" : null;
    const w = await startWalk(DAY, third, { SCHEDULE_FORMAT: format });
    const url = w.r.s.url;
    const n = deliveryDay(DAY).quarterHours.length;
    const path = `${url}/v1/delivery-days/${DAY}/post-delivery`;
    const correct = (body: unknown) =>
      call(`${url}/v1/delivery-days/${DAY}/schedules/${AREAS.amprion}/post-delivery`, {
        method: "POST",
        headers: json,
        body: JSON.stringify(body),
      });
    const settlement = async () => {
      const r = await call(`${url}/v1/delivery-days/${DAY}/settlement`, { headers: proc });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return (r.body as DaySettlement).areas[0];
    };
    try {
      // Wed 09:00: the day-ahead version, 1 MW flat, confirmed.
      await w.forecast(1_000);
      await w.pass();
      assert.deepEqual((await w.history()).map((v) => [v.version, v.tso_status]), [
        [1, "confirmed"],
      ]);
      let g = await call(path, { headers: proc });
      assert.equal(g.status, 200);
      let a = (g.body as PostDelivery).areas[0];
      assert.equal(a.state, "before_delivery");

      // Sat 10:00: actuals and prices arrive.
      w.at(1, "10:00");
      const rows = deliveryDay(DAY).quarterHours.map((q, i) =>
        `${maloId(1)},${q.toString()},${kwhAt(i)}`
      );
      let r = await call(`${url}/v1/actuals`, {
        method: "POST",
        headers: { ...ext, "content-type": "text/csv" },
        body: ["market_location_id,start,kwh", ...rows].join("\n"),
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const rebap = rebapFile(DAY);
      r = await call(`${url}/v1/imbalance-prices`, {
        method: "POST",
        headers: { ...proc, "content-type": "text/csv" },
        body: rebap,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));

      // The proposal, by hand: the schedule set to the actual, the imbalance moved, its value.
      g = await call(path, { headers: proc });
      const view = g.body as PostDelivery;
      a = view.areas[0];
      assert.deepEqual(
        [a.control_area, a.tso, a.tso_name, a.calendar, a.state, a.standing_version],
        [AREAS.amprion, TSO, "Amprion", "published", "open", 1],
      );
      assert.equal(a.deadline, "2026-11-30T15:00:00Z");
      assert.equal(a.deadline_local, "Mon 30 Nov 2026 16:00");
      assert.match(a.rule, /^StromNZV § 5 \(3\):/);
      assert.match(a.rule, /Amprion's list/);
      assert.match(a.rule, /next working day is Mon 30 Nov 2026 \(Sat 28 Nov 2026: weekend/);
      const prices = pricesByHand(rebap);
      assert.equal(prices.length, n);
      const p = a.proposal!;
      let short = 0, long = 0, value = 0;
      for (let i = 0; i < n; i++) {
        const actual = kwhAt(i) * 4 / 1000;
        const moved = (actual - 1) * 0.25;
        const price = moved < 0 ? prices[i][1] : prices[i][0];
        assert.equal(p.schedule_mw[i], actual, `schedule ${i}`);
        close(p.moved_mwh[i], moved, `moved ${i}`);
        close(p.value_eur[i], moved * price, `value ${i}`, 1e-4);
        if (moved > 0) short += moved;
        else long -= moved;
        value += moved * price;
      }
      close(p.moved_short_mwh, short, "short");
      close(p.moved_long_mwh, long, "long");
      close(p.value_eur_total, value, "value", 0.006);
      // Quarter-hours at 1 MW (kWh 250) do not change.
      assert.equal(p.changed_quarter_hours, n - n / 8);
      assert.deepEqual([p.known_quarter_hours, p.unpriced_quarter_hours], [n, 0]);

      // Mon 15:59 Berlin: the correction from the actuals leaves as version 2.
      w.at(3, "15:59");
      r = await correct({ from: "actuals" });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const sent = r.body as Record<string, unknown>;
      const file = `20261127_TPS_${PARTIES.sender}_${TSO}_002.xml`;
      assert.deepEqual(
        [sent.version, sent.replaces_version, sent.phase, sent.channel, sent.format, sent.file],
        [2, 1, "post_delivery", "files", format, file],
      );
      assert.equal(sent.deadline_local, "Mon 30 Nov 2026 16:00");
      const xml = await Deno.readTextFile(`${w.r.outbox}/${file}`);
      if (format === "cim") {
        assert.equal(
          await assertCimValid(xml, "the correction"),
          "iec62325-451-2-schedule_v5_2.xsd",
        );
        assert.match(xml, /<revisionNumber>2<\/revisionNumber>/);
      } else {
        assert.deepEqual(elementPaths(xml), elementPaths(fixture(ESS_SAMPLE)));
        assert.deepEqual(
          (await w.purchase(2)).slice(0, 8),
          ["0.600", "0.800", "1.000", "1.200", "1.400", "1.600", "1.800", "2.000"],
        );
      }
      // The TSO simulator answers (ACK, CNF); the import applies them to version 2.
      await w.answers();
      assert.ok(w.tsos.answered().includes(file));
      const h = await w.history();
      assert.deepEqual(h.map((v) => [v.version, v.phase, v.tso_status]), [
        [1, "day_ahead", "confirmed"],
        [2, "post_delivery", "confirmed"],
      ]);
      const versions = await call(
        `${url}/v1/delivery-days/${DAY}/schedules/${AREAS.amprion}/versions`,
        { headers: proc },
      );
      assert.equal((versions.body as { standing_version: number }).standing_version, 2);
      const events = (await storedEvents(w.r.s.kv)).filter((e) =>
        e.kind === "post_delivery_correction_sent"
      );
      assert.equal(events.length, 1);
      assert.match(
        String(events[0].message),
        /ops sent the post-delivery correction v2 of 2026-11-27 to Amprion \(10XDE-RWENET---W\).*replacing v1\): 84 quarter-hours changed.*until Mon 30 Nov 2026 16:00 Berlin/,
      );

      // The settlement takes the correction: the schedule is the actual, no imbalance is left.
      let s = await settlement();
      assert.equal(s.schedule_version, 2);
      assert.equal(s.day_ahead_version, 1);
      assert.deepEqual(s.schedule_mw, p.schedule_mw);
      assert.ok(s.imbalance_mwh.every((v) => v === 0), JSON.stringify(s.imbalance_mwh));
      assert.deepEqual([s.totals.short_mwh, s.totals.long_mwh, s.totals.cost_eur], [0, 0, 0]);
      g = await call(path, { headers: proc });
      a = (g.body as PostDelivery).areas[0];
      assert.deepEqual(a.corrections.map((c) => [c.version, c.tso_status]), [[2, "confirmed"]]);
      assert.equal(a.proposal!.changed_quarter_hours, 0);

      // 15:59:30: a correction the TSO rejects (v3, 2 MW flat) leaves the settlement on v2.
      w.r.clock.advance(30_000);
      r = await correct({ unit: "MW", quantities: Array(n).fill(2) });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      await w.answers();
      assert.deepEqual((await w.history()).map((v) => [v.version, v.tso_status]).at(-1), [
        3,
        "rejected",
      ]);
      s = await settlement();
      assert.equal(s.schedule_version, 2);
      assert.deepEqual(s.schedule_mw, p.schedule_mw);

      // 16:01: the window has closed, in words; nothing leaves.
      w.at(3, "16:01");
      r = await correct({ unit: "MW", quantities: Array(n).fill(2) });
      assert.equal(r.status, 409);
      const why = (r.body as { detail: string }).detail;
      assert.match(
        why,
        /post-delivery correction window of 2026-11-27 at Amprion \(10XDE-RWENET---W\) closed at Mon 30 Nov 2026 16:00 Berlin \(2026-11-30T15:00:00Z\)/,
      );
      assert.match(why, /StromNZV § 5 \(3\).*Amprion's list.*Nothing was sent\./);
      assert.deepEqual(w.files().map((f) => f.slice(-7)), ["001.xml", "002.xml", "003.xml"]);
      g = await call(path, { headers: proc });
      assert.equal((g.body as PostDelivery).areas[0].state, "closed");
    } finally {
      await w.close();
    }
  });
}
