/**
 * After delivery, on a fake clock (docs/settlement.md): forecast → day-ahead version → two
 * intraday versions (one with frozen quarter-hours) → delivery → actuals (CSV) and the real reBAP
 * prices arrive → the settlement equals a hand computation in this test for every quarter-hour
 * (imbalance, price direction, cost, the day-ahead alternative), `final` only when complete; what
 * the intraday versions saved net of the energy they moved, at ID AEP and at the BRP's own trade
 * price, by hand too; then an MSCONS correction of one quarter-hour changes the numbers and says so. On a 96-quarter-hour
 * day, on 28 March 2027 (92) and on 25 October 2026 (100). The prices are the real March file's
 * rows of the day (the October day: the demo's synthetic file in the same layout), read here by hand.
 */
import assert from "node:assert/strict";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import type { AreaSettlement, DaySettlement } from "../../lib/wire/settlement.ts";
import { call } from "../support/app.ts";
import { ext, proc } from "../support/day_ahead_rig.ts";
import { startWalk } from "../support/intraday_walk.ts";
import { rebapFile } from "../../dev/metering_simulator.ts";
import { maloId } from "../support/portfolio.ts";
import { sample } from "../support/metrics.ts";
import { promtool, PROMTOOL_PATH } from "../support/prometheus.ts";

const MARCH = Deno.readTextFileSync(
  new URL("../fixtures/rebap/reBAP_2027-03_synthetic.csv", import.meta.url),
);
const ID_AEP = Deno.readTextFileSync(
  new URL("../fixtures/rebap/ID-AEP_2027-03_synthetic_datenservice.csv", import.meta.url),
);

/** ID AEP by hand: UTC start (ms) → EUR/MWh, or `null` for `N.A.`. */
function idAepByHand(): Map<number, number | null> {
  const out = new Map<number, number | null>();
  for (const l of ID_AEP.trim().split("\n").slice(1)) {
    const [date, von, , , , v] = l.split(";");
    out.set(Date.parse(`${date}T${von}Z`), v === "N.A." ? null : Number(v.replace(",", ".")));
  }
  return out;
}

/** The day's reBAP file: the real March 2027 file, or the demo's synthetic one in its layout. */
const rebapOf = (day: string) => day.startsWith("2027-03") ? MARCH : rebapFile(day);

/** The day's rows of the reBAP file, by hand: [short, long] EUR/MWh in file order. */
function pricesByHand(day: string, REBAP: string): [number, number][] {
  const [y, m, d] = day.split("-");
  const num = (t: string) => Number(t.replaceAll(".", "").replace(",", "."));
  return REBAP.split("\n").filter((l) => l.startsWith(`${d}.${m}.${y};`)).map((l) => {
    const c = l.split(";");
    return [num(c[5]), num(c[6])];
  });
}

/** kWh metered in quarter-hour `i`: 500, 600, … 1,200, again. */
const kwhAt = (i: number) => 500 + (i % 8) * 100;

/** Equal within `tol` (per quarter-hour 1e-3; totals are rounded to the cent). */
const close = (a: number | null, b: number, what: string, tol = 1e-3) =>
  assert.ok(a !== null && Math.abs(a - b) <= tol, `${what}: ${a} ≠ ${b}`);

for (const day of ["2027-03-10", "2027-03-28", "2026-10-25"]) {
  Deno.test(`settlement walk ${day}: versions, delivery, actuals and prices, by hand; a correction`, async () => {
    const w = await startWalk(day);
    const dd = deliveryDay(day);
    const n = dd.quarterHours.length;
    const settlement = async () => {
      const r = await call(`${w.r.s.url}/v1/delivery-days/${day}/settlement`, { headers: proc });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body as DaySettlement;
    };
    try {
      // D-2 09:00: day-ahead 1 MW. D-1 16:00: 2 MW. D 09:07: 3 MW from 09:30 on (before: frozen).
      await w.forecast(1_000);
      await w.pass();
      w.at(-1, "16:00");
      await w.forecast(2_000);
      await w.pass();
      w.at(-1, "18:00");
      await w.answers();
      w.at(0, "09:07");
      await w.forecast(3_000);
      await w.pass();
      const h = await w.history();
      assert.deepEqual(h.map((v) => [v.version, v.phase]), [
        [1, "day_ahead"],
        [2, "intraday"],
        [3, "intraday"],
      ]);
      const f3 = dd.quarterHours.findIndex((q) =>
        q.toZonedDateTimeISO("Europe/Berlin").toPlainTime().toString() === "09:30:00"
      );
      assert.equal(f3, day === "2027-03-28" ? 34 : day === "2026-10-25" ? 42 : 38);
      const schedule = Array.from({ length: n }, (_, i) => (i < f3 ? 2 : 3));

      // D+1 10:00: nothing measured, no prices yet.
      w.at(1, "10:00");
      let s = await settlement();
      assert.equal(s.quarter_hours.length, n);
      assert.equal(s.status, "provisional");
      let a: AreaSettlement = s.areas[0];
      assert.deepEqual([a.schedule_version, a.day_ahead_version], [3, 1]);
      assert.deepEqual(a.schedule_mw, schedule);
      assert.deepEqual(a.day_ahead_mw, Array(n).fill(1));
      assert.deepEqual(a.actual_mw, Array(n).fill(null));
      assert.deepEqual(a.cost_eur, Array(n).fill(null));
      assert.deepEqual([a.completeness.metered, a.completeness.missing], [0, 1]);

      // Actuals for all but the last quarter-hour, then the prices: still provisional.
      const rows = dd.quarterHours.map((q, i) => `${maloId(1)},${q.toString()},${kwhAt(i)}`);
      let r = await call(`${w.r.s.url}/v1/actuals`, {
        method: "POST",
        headers: { ...ext, "content-type": "text/csv" },
        body: ["market_location_id,start,kwh", ...rows.slice(0, -1)].join("\n"),
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      r = await call(`${w.r.s.url}/v1/imbalance-prices`, {
        method: "POST",
        headers: { ...proc, "content-type": "text/csv" },
        body: rebapOf(day),
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      s = await settlement();
      a = s.areas[0];
      assert.equal(s.status, "provisional");
      assert.equal(a.actual_mw[n - 1], null);
      assert.equal(a.completeness.missing, 1);
      assert.equal(a.completeness.priced_quarter_hours, n);

      // The last quarter-hour: final, and every quarter-hour as computed by hand.
      r = await call(`${w.r.s.url}/v1/actuals`, {
        method: "POST",
        headers: { ...ext, "content-type": "text/csv" },
        body: ["market_location_id,start,kwh", ...rows].join("\n"),
      });
      assert.deepEqual(
        [(r.body as { added: number }).added, (r.body as { unchanged: number }).unchanged],
        [1, n - 1],
      );
      s = await settlement();
      a = s.areas[0];
      assert.equal(s.status, "final");
      assert.equal(a.completeness.status, "final");
      const prices = pricesByHand(day, rebapOf(day));
      assert.equal(prices.length, n);
      let cost = 0, daCost = 0, short = 0, long = 0;
      for (let i = 0; i < n; i++) {
        const actual = kwhAt(i) * 4 / 1000; // kWh in 0.25 h → MW
        const imb = (actual - schedule[i]) * 0.25;
        const price = imb < 0 ? prices[i][1] : prices[i][0];
        const daImb = (actual - 1) * 0.25;
        const daPrice = daImb < 0 ? prices[i][1] : prices[i][0];
        close(a.actual_mw[i], actual, `actual ${i}`);
        close(a.imbalance_mwh[i], imb, `imbalance ${i}`);
        assert.equal(a.price_eur_mwh[i], price, `price ${i}`);
        close(a.cost_eur[i], imb * price, `cost ${i}`);
        close(a.day_ahead_cost_eur[i], daImb * daPrice, `day-ahead cost ${i}`);
        cost += imb * price;
        daCost += daImb * daPrice;
        if (imb > 0) short += imb;
        else long -= imb;
      }
      close(a.totals.cost_eur, cost, "total cost", 0.006);
      close(a.totals.day_ahead_cost_eur, daCost, "day-ahead cost", 0.006);
      close(a.totals.short_mwh, short, "short");
      close(a.totals.long_mwh, long, "long");
      close(a.totals.imbalance_avoided_eur, daCost - cost, "imbalance avoided", 0.006);
      assert.deepEqual(s.totals, a.totals);
      if (!day.startsWith("2027-03")) {
        // No ID AEP for this day: the net figure is unknown, never the gross one relabelled.
        assert.equal(a.totals.intraday_energy_cost_eur, null);
        assert.equal(a.totals.intraday_saving_eur, null);
      } else {
        // The energy the intraday versions bought, at ID AEP, by hand; then one own trade.
        r = await call(`${w.r.s.url}/v1/imbalance-prices`, {
          method: "POST",
          headers: { ...proc, "content-type": "text/csv" },
          body: ID_AEP,
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const aep = idAepByHand();
        const energyCost = (price: (i: number) => number) => {
          let sum = 0;
          for (let i = 0; i < n; i++) sum += (schedule[i] - 1) * 0.25 * price(i);
          return sum;
        };
        const atAep = (i: number) => aep.get(dd.quarterHours[i].epochMilliseconds)!;
        let b = (await settlement()).areas[0];
        for (const i of [0, f3 - 1, f3, n - 1]) {
          close(b.intraday_mwh[i], (schedule[i] - 1) * 0.25, `intraday energy ${i}`);
          assert.equal(b.intraday_price_eur_mwh[i], atAep(i), `ID AEP ${i}`);
          close(b.intraday_cost_eur[i], (schedule[i] - 1) * 0.25 * atAep(i), `intraday cost ${i}`);
        }
        close(b.totals.intraday_energy_cost_eur, energyCost(atAep), "energy cost", 0.006);
        close(
          b.totals.intraday_saving_eur,
          daCost - cost - energyCost(atAep),
          "net saving",
          0.011,
        );
        // Own trades in quarter-hour 50: 0.4 MWh at 100 and 0.1 MWh at 50 → 90 EUR/MWh.
        const start = dd.quarterHours[50].toString();
        r = await call(`${w.r.s.url}/v1/intraday-trades`, {
          method: "POST",
          headers: { ...proc, "content-type": "text/csv" },
          body:
            `control_area,start,mwh,eur_mwh\n${a.control_area},${start},0.4,100\n${a.control_area},${start},0.1,50\n`,
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        b = (await settlement()).areas[0];
        assert.deepEqual(
          [b.intraday_price_eur_mwh[50], b.intraday_price_source[50], b.intraday_price_source[49]],
          [90, "trades", "id_aep"],
        );
        const withTrade = (i: number) => i === 50 ? 90 : atAep(i);
        close(b.totals.intraday_energy_cost_eur, energyCost(withTrade), "with the trade", 0.006);
        close(
          b.totals.intraday_saving_eur,
          daCost - cost - energyCost(withTrade),
          "net with the trade",
          0.011,
        );
      }

      // An MSCONS correction of quarter-hour 40: the numbers change, and the answer says so.
      const q = dd.quarterHours[40].epochMilliseconds;
      const f303 = (ms: number) =>
        new Date(ms).toISOString().slice(0, 16).replace(/[-T:]/g, "") + "?+00";
      const msg = [
        "UNA:+.? '",
        "UNB+UNOC:3+9900000000001:500+9900000000002:500+270401:1000+CORR1++TL'",
        "UNH+1+MSCONS:D:04B:UN:2.4c'",
        "BGM+7+CORR1-1+9'",
        "UNS+D'",
        "NAD+DP'",
        `LOC+172+${maloId(1)}'`,
        "LIN+1'",
        "QTY+220:2000.5:KWH'",
        `DTM+163:${f303(q)}:303'`,
        `DTM+164:${f303(q + 900_000)}:303'`,
        "UNT+10+1'",
        "UNZ+1+CORR1'",
      ].join("");
      r = await call(`${w.r.s.url}/v1/actuals`, {
        method: "POST",
        headers: { ...ext, "content-type": "application/edifact" },
        body: msg,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const corr = r.body as { replaced: number; message: string };
      assert.equal(corr.replaced, 1);
      assert.match(corr.message, /1 replaced earlier ones/);
      const b = (await settlement()).areas[0];
      const imb40 = (2000.5 * 4 / 1000 - schedule[40]) * 0.25;
      close(b.actual_mw[40], 8.002, "corrected actual");
      close(b.imbalance_mwh[40], imb40, "corrected imbalance");
      close(b.cost_eur[40], imb40 * prices[40][0], "corrected cost");
      close(
        b.totals.cost_eur,
        cost - a.cost_eur[40]! + imb40 * prices[40][0],
        "corrected total",
        0.006,
      );
      assert.equal(b.completeness.status, "final");

      // The month view has the day.
      const m = await call(`${w.r.s.url}/v1/settlement/months/${day.slice(0, 7)}`, {
        headers: proc,
      });
      assert.equal(m.status, 200);
      const cells = (m.body as { cells: { delivery_day: string; cost_eur: number }[] }).cells;
      // The day before had schedules sent too: a cell. The days after had them as well, but are
      // not over yet (the clock is on D+1): no cells.
      assert.ok(cells.every((c) => c.delivery_day.startsWith(day.slice(0, 7))));
      assert.ok(
        cells.every((c) => c.delivery_day <= day),
        JSON.stringify(cells.map((c) => c.delivery_day)),
      );
      assert.equal(cells.find((c) => c.delivery_day === day)!.cost_eur, b.totals.cost_eur);

      // The metrics show yesterday's cost, energy and completeness (the clock is on D+1).
      const text = String((await call(`${w.r.s.url}/metrics`, { headers: proc })).body);
      const area = { control_area: a.control_area };
      assert.equal(
        sample(text, "fahrplan_imbalance_cost_eur", { ...area, status: "final" }),
        b.totals.cost_eur,
      );
      close(
        sample(text, "fahrplan_imbalance_energy_joules", { ...area, direction: "short" })! / 3.6e9,
        b.totals.short_mwh,
        "short joules",
      );
      assert.equal(sample(text, "fahrplan_settlement_final", area), 1);
      assert.equal(sample(text, "fahrplan_settlement_locations", { ...area, state: "metered" }), 1);
      assert.equal(sample(text, "fahrplan_settlement_priced_ratio"), 1);
      if (await Deno.stat(PROMTOOL_PATH).then(() => true, () => false)) {
        const lint = await promtool(["check", "metrics"], text);
        assert.equal(lint.code, 0, lint.stdout + lint.stderr);
      }
    } finally {
      await w.close();
    }
  });
}
