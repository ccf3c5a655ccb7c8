/**
 * The clearing list (docs/settlement.md, "Checking the settlement data") over HTTP: the DSO's
 * balancing-group sum (the AHB 13003 interchange, tests/fixtures/mscons/ahb) against our own
 * market-location sum on 28 March 2027, differing in exactly 3 quarter-hours over the tolerance
 * (and in one under it): listed with MWh, the month's MaBiS dates, the CSV export, a mark on a stale
 * list refused, a mark that holds until the list changes.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import type { ClearingList } from "../../lib/wire/clearing.ts";
import { call, startServer, storedEvents } from "../support/app.ts";
import { EXT, PROC } from "../support/keys.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

const SZ = Deno.readTextFileSync(
  new URL("../fixtures/mscons/ahb/MSCONS_13003_Summenzeitreihe_synthetic.txt", import.meta.url),
);
const DAY = "2027-03-28";
const POINT = "DE0123456000000000000000000000001";
const ext = { "x-api-key": EXT }, proc = { "x-api-key": PROC };

Deno.test("clearing list: 3 quarter-hours over the tolerance, MaBiS dates, CSV, marks", async () => {
  const clock = new FakeClock(Date.parse("2027-04-02T08:00:00Z"));
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    ACTIVE_CONTROL_AREAS: AREAS.amprion,
    MABIS_METERING_POINTS: `${POINT}=${AREAS.amprion}/11X0-0000-0123-O`,
  }, { clock });
  const list = async (query = "") => {
    const r = await call(`${s.url}/v1/settlement/months/2027-03/clearing${query}`, {
      headers: proc,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as ClearingList;
  };
  try {
    let r = await call(`${s.url}/v1/market-locations/${maloId(1)}`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ control_area: AREAS.amprion, direction: "consumption" }),
    });
    assert.equal(r.status, 201);
    // The sum's values (the missing one given), and ours: the same but in quarter-hours 10, 11
    // and 60 (+10 kWh, +10 kWh, −25 kWh) and 70 (+0.5 kWh, under the tolerance of 1 kWh).
    const sum = SZ.replace("QTY+Z30:0.000'", "QTY+220:4340.000'");
    const values = [...sum.matchAll(/QTY\+220:([0-9.]+)'/g)].map((m) => Number(m[1]));
    assert.equal(values.length, 92);
    const delta: Record<number, number> = { 10: 10, 11: 10, 60: -25, 70: 0.5 };
    const qh = deliveryDay(DAY).quarterHours;
    const csv = [
      "market_location_id,start,kwh",
      ...qh.map((q, i) => `${maloId(1)},${q},${values[i] + (delta[i] ?? 0)}`),
    ].join("\n");
    r = await call(`${s.url}/v1/actuals`, {
      method: "POST",
      headers: { ...ext, "content-type": "text/csv" },
      body: csv,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual((await list()).areas, [], "no sum yet: nothing to compare");
    r = await call(`${s.url}/v1/actuals`, {
      method: "POST",
      headers: { ...ext, "content-type": "application/edifact" },
      body: sum,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));

    const waiting = async () => {
      const st = await call(`${s.url}/v1/console/status`, { headers: proc });
      assert.equal(st.status, 200);
      return (st.body as { attention: { code: string; message: string }[] }).attention
        .filter((i) => i.code === "clearing_open");
    };
    assert.deepEqual((await waiting()).map((i) => i.message), [
      "The clearing list of March 2027 in Amprion waits to be checked: compare the DSOs' balancing-group sums with ours and mark it checked or objected — the main settlement ends Wed 12 May (29th working day, MaBiS).",
    ]);
    let l = await list();
    assert.equal(l.tolerance_kwh, 1);
    assert.deepEqual(l.mabis, {
      preliminary_sum: "2027-04-26",
      main_settlement_end: "2027-05-12",
      final_sum: "2027-06-02",
      correction_end: "2027-10-31",
    });
    assert.equal(l.areas.length, 1);
    const a = l.areas[0];
    assert.deepEqual(a.sources, [{
      network_operator: "9900357000004",
      balancing_area: null,
      metering_point: POINT,
    }]);
    assert.deepEqual([a.days_compared, a.quarter_hours_compared, a.status], [1, 92, "open"]);
    assert.deepEqual(
      a.quarter_hours.map((q) => [q.index, q.start, q.sum_mwh, q.ours_mwh, q.difference_mwh]),
      [10, 11, 60].map((i) => [
        i,
        qh[i].toString(),
        values[i] / 1000,
        (values[i] + delta[i]) / 1000,
        Math.round(-delta[i]) / 1000,
      ]),
    );
    assert.equal(a.difference_mwh, 0.005);

    // The CSV export: one row per listed quarter-hour.
    const file = await fetch(`${s.url}/v1/settlement/months/2027-03/clearing?format=csv`, {
      headers: proc,
    });
    assert.equal(
      file.headers.get("content-disposition"),
      'attachment; filename="clearing_2027-03.csv"',
    );
    const rows = (await file.text()).trim().split("\r\n");
    assert.equal(
      rows[0],
      "delivery_day,start_utc,control_area,sum_mwh,ours_mwh,difference_mwh,status",
    );
    assert.equal(rows.length, 4);
    assert.equal(
      rows[1],
      `${DAY},${qh[10]},${AREAS.amprion},${values[10] / 1000},${
        (values[10] + 10) / 1000
      },-0.01,open`,
    );

    // Marked on a list read before a change: refused; on the list as it is: it holds.
    const mark = (fingerprint: string) =>
      call(`${s.url}/v1/settlement/months/2027-03/clearing/${AREAS.amprion}`, {
        method: "PUT",
        headers: proc,
        body: JSON.stringify({
          status: "objected",
          note: "objected to the DSO by mail",
          fingerprint,
        }),
      });
    r = await mark("3-00000000");
    assert.equal(r.status, 409);
    assert.match(
      JSON.stringify(r.body),
      /changed since it was read \(now 3 quarter-hours over the tolerance/,
    );
    r = await mark(a.fingerprint);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    l = await list();
    assert.equal(l.areas[0].status, "objected");
    assert.deepEqual([l.areas[0].mark?.by, l.areas[0].mark?.holds], ["ops", true]);
    assert.deepEqual(await waiting(), [], "marked: read right after the write, nothing waits");
    const ev = (await storedEvents(s.kv)).find((e) => e.kind === "clearing_marked");
    assert.match(
      String(ev?.message),
      /ops marked the clearing list of Amprion for 2027-03 objected \(3 quarter-hours, 0\.005 MWh\): objected to the DSO by mail/,
    );

    // A corrected actual removes one difference: another list, the mark no longer holds.
    r = await call(`${s.url}/v1/actuals`, {
      method: "POST",
      headers: { ...ext, "content-type": "text/csv" },
      body: `market_location_id,start,kwh\n${maloId(1)},${qh[60]},${values[60]}\n`,
    });
    assert.equal(r.status, 200);
    l = await list();
    assert.deepEqual(l.areas[0].quarter_hours.map((q) => q.index), [10, 11]);
    assert.deepEqual([l.areas[0].status, l.areas[0].mark?.holds], ["open", false]);
    // A corrected sum a day later puts the list before the operator again.
    clock.set(Date.parse("2027-04-03T08:00:00Z"));
    r = await call(`${s.url}/v1/actuals`, {
      method: "POST",
      headers: { ...ext, "content-type": "application/edifact" },
      body: sum.replace("QTY+220:4340.000'", "QTY+220:4341.000'"),
    });
    assert.equal(r.status, 200);
    assert.match(
      (await waiting())[0].message,
      /waits to be checked again \(marked objected before the last sums arrived\)/,
    );

    // Bad input in words.
    r = await call(`${s.url}/v1/settlement/months/2027-13/clearing`, { headers: proc });
    assert.equal(r.status, 422);
    r = await call(`${s.url}/v1/settlement/months/2027-03/clearing?fmt=csv`, { headers: proc });
    assert.equal(r.status, 422);
    r = await call(`${s.url}/v1/settlement/months/2027-03/clearing/${AREAS.tennet}`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({ status: "checked", note: "fine", fingerprint: "x" }),
    });
    assert.equal(r.status, 404);
  } finally {
    await s.close();
  }
});
