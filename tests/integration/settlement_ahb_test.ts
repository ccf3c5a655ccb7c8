/**
 * MSCONS and prices exactly as German market communication delivers them today, over HTTP on a
 * walk of 28 March 2027 (92 quarter-hours; docs/settlement.md): the two interchanges built after
 * the EDI@Energy AHB FV2504 (tests/fixtures/mscons/ahb) import — energy per location = Σ QTY, the
 * substitute value counted with its method and reason, the provisional values keeping the day
 * provisional, the sum's missing value unknown — the MaBiS metering point is refused until it is
 * mapped (`mabis_metering_points`), then its sum is the settlement actual; the AEP estimate prices
 * the day until the data service's reBAP replaces it, each step said in an event; ID AEP is stored
 * with `null` where it is `N.A.`.
 */
import assert from "node:assert/strict";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { balancingGroupSumsOfDay } from "../../lib/settlement/actuals_store.ts";
import { pricesOfDay } from "../../lib/settlement/prices_store.ts";
import type { DaySettlement } from "../../lib/wire/settlement.ts";
import { call, storedEvents } from "../support/app.ts";
import { ext, proc } from "../support/day_ahead_rig.ts";
import { startWalk } from "../support/intraday_walk.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

const DAY = "2027-03-28";
const FIX = new URL("../fixtures/", import.meta.url);
const read = (p: string) => Deno.readTextFileSync(new URL(p, FIX));
const LG = read("mscons/ahb/MSCONS_13025_Lastgang_Marktlokation_synthetic.txt");
const SZ = read("mscons/ahb/MSCONS_13003_Summenzeitreihe_synthetic.txt");
const REBAP_DS = read("rebap/reBAP_2027-03_synthetic_datenservice.csv");
const ID_AEP = read("rebap/ID-AEP_2027-03_synthetic_datenservice.csv");
const POINT = "DE0123456000000000000000000000001";

/** Σ of the message's QTY values around `loc`, read from the raw text, kWh per quarter-hour. */
function rawKwh(text: string, loc: string): number[] {
  const from = text.indexOf(`LOC+172+${loc}'`);
  const part = text.slice(from, text.indexOf("UNT+", from));
  return [...part.matchAll(/QTY\+[0-9Z]+:([0-9.]+)'/g)].map((m) => Number(m[1]));
}

/** The day's rows of the data-service reBAP as the TSOs' AEP estimate: each price + `delta`. */
function estimateOf(day: string, delta: number): string {
  const dd = deliveryDay(day);
  const first = new Date(dd.start.epochMilliseconds).toISOString();
  const last = new Date(dd.end.epochMilliseconds - 900_000).toISOString();
  const dates = new Set(
    [first.slice(0, 10), last.slice(0, 10)].map((x) => x.split("-").reverse().join(".")),
  );
  const rows = REBAP_DS.trim().split("\n").slice(1).filter((l) => dates.has(l.slice(0, 10)))
    .filter((l) => {
      const [date, , von] = l.split(";");
      const ms = Date.parse(`${date.split(".").reverse().join("-")}T${von}Z`);
      return ms >= dd.start.epochMilliseconds && ms < dd.end.epochMilliseconds;
    })
    .map((l) => {
      const c = l.split(";");
      const price = Number(c[7].replaceAll(".", "").replace(",", ".")) + delta;
      return [
        ...c.slice(0, 4),
        "AEP-Schätzer",
        "Betrieblich",
        "EUR/MWh",
        String(price.toFixed(2)).replace(".", ","),
        "0,00",
      ].join(";");
    });
  assert.equal(rows.length, dd.quarterHours.length, day);
  return ["Datum;Zeitzone;von;bis;Datenkategorie;Datentyp;Einheit;AEP-Schätzer;Status", ...rows]
    .join("\n");
}

Deno.test("AHB MSCONS, MaBiS metering point, AEP estimate → reBAP, ID AEP: a walk of 28 March 2027", async () => {
  const w = await startWalk(DAY);
  const url = w.r.s.url;
  const n = 92;
  const post = (path: string, body: string, type: string, headers = proc) =>
    call(`${url}${path}`, { method: "POST", headers: { ...headers, "content-type": type }, body });
  const settlement = async (day = DAY) => {
    const r = await call(`${url}/v1/delivery-days/${day}/settlement`, { headers: proc });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as DaySettlement;
  };
  try {
    await w.forecast(1_000);
    await w.pass();
    w.at(-1, "18:00");
    await w.answers();
    for (const id of ["51234567895", "59876543215"]) {
      const r = await call(`${url}/v1/market-locations/${id}`, {
        method: "PUT",
        headers: ext,
        body: JSON.stringify({ control_area: AREAS.amprion, direction: "consumption" }),
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    w.at(1, "10:00");
    const qh = deliveryDay(DAY).quarterHours;
    const csv = ["market_location_id,start,kwh", ...qh.map((q) => `${maloId(1)},${q},250`)];
    assert.equal((await post("/v1/actuals", csv.join("\n"), "text/csv", ext)).status, 200);

    // The sum before its metering point is mapped: refused, naming it; nothing stored.
    let r = await post("/v1/actuals", SZ, "application/edifact", ext);
    assert.equal(r.status, 422);
    assert.match(
      JSON.stringify(r.body),
      /MaBiS metering point DE0123456000000000000000000000001 is not mapped to a control area and balancing group here \(add DE0123456000000000000000000000001=<control-area EIC>\/<balancing-group EIC> to the runtime field mabis_metering_points first\)/,
    );
    assert.deepEqual(await balancingGroupSumsOfDay(w.r.s.kv, DAY), []);
    const config = (body: unknown) =>
      call(`${url}/v1/console/config`, {
        method: "PUT",
        headers: proc,
        body: JSON.stringify(body),
      });
    r = await config({ mabis_metering_points: ["DE01234=10YDE-RWENET---I/11X0-0000-0123-O"] });
    assert.equal(r.status, 422);
    assert.match(JSON.stringify(r.body), /DE01234 is not a MaBiS metering point designation/);
    r = await config({ mabis_metering_points: [`${POINT}=10YDE-RWENET---I/11X0-0000-0123-O`] });
    assert.equal(r.status, 200, JSON.stringify(r.body));

    // The load profiles: energy = Σ QTY; 1 substitute value, 4 provisional values.
    r = await post("/v1/actuals", LG, "application/edifact", ext);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const lg = r.body as Record<string, number>;
    assert.deepEqual([lg.market_locations, lg.added, lg.substitutes, lg.provisional], [
      2,
      184,
      1,
      4,
    ]);
    assert.match(
      String(r.body && (r.body as { message: string }).message),
      /among them 1 substitute value, 4 provisional values/,
    );
    r = await post("/v1/actuals", SZ, "application/edifact", ext);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual([
      (r.body as Record<string, number>).balancing_group_sums,
      (r.body as Record<string, number>).missing,
    ], [1, 1]);

    // The morning after: only the AEP estimate.
    r = await post("/v1/imbalance-prices", estimateOf(DAY, 10), "text/csv");
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual([
      (r.body as { price_kind: string }).price_kind,
      (r.body as { added: number }).added,
    ], ["aep_estimate", n]);
    let s = await settlement();
    let a = s.areas[0];
    assert.equal(a.actual_source, "market_locations", "the sum has a missing value: not complete");
    const ml1 = rawKwh(LG, "51234567895"), ml2 = rawKwh(LG, "59876543215");
    for (const i of [0, 30, 91]) {
      const mw = (250 + ml1[i] + ml2[i]) * 4 / 1000;
      assert.ok(Math.abs(a.actual_mw[i]! - mw) < 1e-6, `qh ${i}: ${a.actual_mw[i]} ≠ ${mw}`);
    }
    assert.deepEqual(a.completeness.substitutes, [{
      method: "Z92",
      method_text: "interpolation",
      reason: "Z75",
      reason_text: "communication failure",
      quarter_hours: 1,
    }]);
    assert.deepEqual(
      [
        a.completeness.substitute_quarter_hours,
        a.completeness.provisional_quarter_hours,
        a.completeness.estimated_quarter_hours,
      ],
      [1, 4, n],
    );
    assert.ok(a.price_source.every((p) => p === "aep_estimate"));
    assert.equal(s.status, "provisional");

    // The provisional values become true values; the sum's missing value arrives.
    r = await post(
      "/v1/actuals",
      LG.replaceAll("QTY+Z18:", "QTY+220:"),
      "application/edifact",
      ext,
    );
    assert.deepEqual([
      (r.body as Record<string, number>).replaced,
      (r.body as Record<string, number>).provisional,
    ], [4, 0]);
    r = await post(
      "/v1/actuals",
      SZ.replace("QTY+Z30:0.000'", "QTY+220:4340.000'"),
      "application/edifact",
      ext,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    s = await settlement();
    a = s.areas[0];
    assert.equal(a.actual_source, "balancing_group_sum");
    const sum = rawKwh(SZ, POINT);
    assert.ok(Math.abs(a.actual_mw[0]! - sum[0] * 4 / 1000) < 1e-9);
    assert.ok(Math.abs(a.actual_mw[50]! - 4340 * 4 / 1000) < 1e-9);
    assert.equal(a.completeness.provisional_quarter_hours, 0);
    assert.equal(s.status, "provisional", "still priced by the estimate");

    // The reBAP, after quality assurance: it replaces the estimate, and says what that changed.
    const costBefore = s.totals.cost_eur;
    r = await post("/v1/imbalance-prices", REBAP_DS, "text/csv");
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const rb = r.body as { replaced_estimates: number; repriced: unknown[]; quarter_hours: number };
    assert.deepEqual([rb.quarter_hours, rb.replaced_estimates], [2972, n]);
    assert.deepEqual(rb.repriced, [{ day: DAY, quarter_hours: n }]);
    s = await settlement();
    assert.equal(s.status, "final");
    assert.ok(s.areas[0].price_source.every((p) => p === "rebap"));
    assert.notEqual(s.totals.cost_eur, costBefore);
    const events = await storedEvents(w.r.s.kv);
    const repriced = events.filter((e) => e.kind === "settlement_repriced");
    assert.equal(repriced.length, 1);
    assert.equal(
      repriced[0].message,
      `${DAY}: the reBAP replaced the AEP estimate in 92 quarter-hours; the imbalance cost is ${
        s.totals.cost_eur.toFixed(2)
      } EUR (on the estimate: ${
        costBefore.toFixed(2)
      } EUR); the day is now final (was provisional).`,
    );
    const estimateEvent = events.find((e) =>
      e.kind === "imbalance_prices_received" && /AEP estimate/.test(String(e.message))
    );
    assert.match(
      String(estimateEvent?.message),
      /Costs priced by it are estimated until the reBAP is published after quality assurance/,
    );

    // An estimate after the reBAP changes nothing; a refused file stores nothing.
    const before = await pricesOfDay(w.r.s.kv, DAY);
    r = await post("/v1/imbalance-prices", estimateOf(DAY, 50), "text/csv");
    assert.deepEqual([
      (r.body as { kept_rebap: number }).kept_rebap,
      (r.body as { added: number }).added,
      (r.body as { replaced: number }).replaced,
    ], [n, 0, 0]);
    r = await post(
      "/v1/imbalance-prices",
      estimateOf(DAY, 50).replace(";UTC;", ";CET;"),
      "text/csv",
    );
    assert.equal(r.status, 422);
    assert.deepEqual(await pricesOfDay(w.r.s.kv, DAY), before);

    // ID AEP: stored per quarter-hour, null where N.A. (16 March, 14:00 UTC: quarter-hour 60).
    r = await post("/v1/imbalance-prices", ID_AEP, "text/csv");
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual([
      (r.body as { price_kind: string }).price_kind,
      (r.body as { unknown: number }).unknown,
    ], ["id_aep", 1]);
    const march16 = await settlement("2027-03-16");
    assert.equal(march16.id_aep_eur_mwh?.[60], null);
    assert.equal(march16.id_aep_eur_mwh?.filter((v) => v === null).length, 1);
    assert.equal((await settlement()).id_aep_eur_mwh?.length, n);
  } finally {
    await w.close();
  }
});
