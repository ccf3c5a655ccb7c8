/**
 * What the settlement's actual is made of (docs/settlement.md, "Computation"), over HTTP:
 * metered locations, the profile values of SLP locations without metering (profile-settled), a
 * location without profile and without metering (unknown, never zero), the deviation per source;
 * and the balancing-group sum that replaces the market-location sum once `balancing_areas` maps
 * every balancing area of the control area (configured through the console, audited).
 */
import assert from "node:assert/strict";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { generateProfileForecast } from "../../lib/domain/slp/profile.ts";
import type { DaySettlement } from "../../lib/wire/settlement.ts";
import { call, startServer, storedEvents } from "../support/app.ts";
import { EXT, PROC } from "../support/keys.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

const DAY = "2027-03-10";
const ext = { "x-api-key": EXT };
const proc = { "x-api-key": PROC };

Deno.test("settlement sources: metered, profile-settled, unknown; the balancing-group sum", async () => {
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    ACTIVE_CONTROL_AREAS: AREAS.amprion,
  });
  const put = async (n: number, body: Record<string, unknown>) => {
    const r = await call(`${s.url}/v1/market-locations/${maloId(n)}`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ control_area: AREAS.amprion, ...body }),
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  };
  const settle = async () => {
    const r = await call(`${s.url}/v1/delivery-days/${DAY}/settlement`, { headers: proc });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body as DaySettlement).areas[0];
  };
  const qh = deliveryDay(DAY).quarterHours;
  const n = qh.length;
  const csv = (id: string, kwh: (i: number) => number, count = n) =>
    ["market_location_id,start,kwh", ...qh.slice(0, count).map((q, i) => `${id},${q},${kwh(i)}`)]
      .join("\n");
  const postCsv = (body: string) =>
    call(`${s.url}/v1/actuals`, {
      method: "POST",
      headers: { ...ext, "content-type": "text/csv" },
      body,
    });
  try {
    // 1: H0 household, 3,500 kWh/a, not metered (profile-settled). 2: G0, 20,000 kWh/a, metered.
    // 3: a generation park without profile, metered.
    await put(1, { direction: "consumption", standard_load_profile: "H0", annual_kwh: 3500 });
    await put(2, { direction: "consumption", standard_load_profile: "G0", annual_kwh: 20_000 });
    await put(3, { direction: "generation" });
    let a = await settle();
    // The park is not metered: the actual is unknown everywhere.
    assert.deepEqual(a.actual_mw, Array(n).fill(null));
    assert.deepEqual(
      [a.completeness.metered, a.completeness.profile_settled, a.completeness.missing],
      [0, 2, 1],
    );

    assert.equal((await postCsv(csv(maloId(2), (i) => 1 + (i % 4)))).status, 200);
    assert.equal((await postCsv(csv(maloId(3), () => 250))).status, 200);
    a = await settle();
    assert.deepEqual(
      [a.completeness.metered, a.completeness.profile_settled, a.completeness.missing],
      [2, 1, 0],
    );
    const h0 = generateProfileForecast("H0", 3500, DAY); // kW, the generated profile values
    const g0 = generateProfileForecast("G0", 20_000, DAY);
    for (const i of [0, 17, 40, n - 1]) {
      const want = (h0[i] + (1 + (i % 4)) * 4 - 250 * 4) / 1000; // MW, generation negative
      assert.ok(Math.abs(a.actual_mw[i]! - want) < 1e-6, `${i}: ${a.actual_mw[i]} ≠ ${want}`);
    }
    // Where the errors come from: the metered G0 location against its profile forecast.
    const g = a.accuracy.by_source.find((x) => x.source === "G0")!;
    let abs = 0, mad = 0;
    for (let i = 0; i < n; i++) {
      const d = Math.abs(g0[i] - (1 + (i % 4)) * 4);
      abs += d;
      mad += d;
    }
    assert.equal(g.locations, 1);
    assert.ok(Math.abs(g.abs_deviation_mwh! - abs * 0.25 / 1000) < 1e-6);
    assert.ok(Math.abs(g.mad_mw! - mad / n / 1000) < 1e-6);
    assert.equal(a.actual_source, "market_locations");
    // The park nobody forecast is not left out: its whole actual is deviation, under `none`.
    const none = a.accuracy.by_source.find((x) => x.source === "none")!;
    assert.deepEqual([none.locations, none.abs_deviation_mwh], [1, 250 * n / 1000]);
    assert.deepEqual(a.accuracy.by_source.map((x) => x.source), ["none", "G0"]);

    // Per location, on demand and as CSV: largest deviation first.
    const per = await call(
      `${s.url}/v1/delivery-days/${DAY}/settlement/locations?control_area=${AREAS.amprion}`,
      { headers: proc },
    );
    assert.equal(per.status, 200, JSON.stringify(per.body));
    const rows = per.body as { total: number; locations: Record<string, unknown>[] };
    assert.equal(rows.total, 2);
    assert.deepEqual(rows.locations[0], {
      malo_id: maloId(3),
      direction: "generation",
      source: "none",
      quarter_hours: n,
      forecast_mwh: 0,
      actual_mwh: 250 * n / 1000,
      abs_deviation_mwh: 250 * n / 1000,
    });
    assert.deepEqual(
      [rows.locations[1].malo_id, rows.locations[1].source],
      [maloId(2), "G0"],
    );
    assert.ok(Math.abs((rows.locations[1].abs_deviation_mwh as number) - abs * 0.25 / 1000) < 1e-6);
    const file = await fetch(
      `${s.url}/v1/delivery-days/${DAY}/settlement/locations?control_area=${AREAS.amprion}&format=csv`,
      { headers: proc },
    );
    const lines = (await file.text()).trim().split("\r\n");
    assert.equal(
      lines[0],
      "malo_id,direction,source,quarter_hours,forecast_mwh,actual_mwh,abs_deviation_mwh",
    );
    assert.equal(
      lines[1],
      `${maloId(3)},generation,none,${n},0,${250 * n / 1000},${250 * n / 1000}`,
    );
    assert.equal(lines.length, 3);
    const bad = await call(
      `${s.url}/v1/delivery-days/${DAY}/settlement/locations?control_area=amprion`,
      { headers: proc },
    );
    assert.equal(bad.status, 422);

    // A change of master data shows in the next settlement (the facts kept of the metered
    // locations follow the master-data version): the park turns into a consumer.
    const turn = async (direction: string) => {
      const r = await call(`${s.url}/v1/market-locations/${maloId(3)}`, {
        method: "PUT",
        headers: ext,
        body: JSON.stringify({ control_area: AREAS.amprion, direction }),
      });
      assert.ok(r.status === 200 || r.status === 201, JSON.stringify(r.body));
    };
    await turn("consumption");
    const c = await settle();
    for (const i of [0, 40]) {
      const want = (h0[i] + (1 + (i % 4)) * 4 + 250 * 4) / 1000;
      assert.ok(Math.abs(c.actual_mw[i]! - want) < 1e-6, `${i}: ${c.actual_mw[i]} ≠ ${want}`);
    }
    await turn("generation");
    assert.deepEqual((await settle()).actual_mw, a.actual_mw);

    // A balancing-group sum of one balancing area, mapped to Amprion: it becomes the actual.
    const cfg = await call(`${s.url}/v1/console/config`, {
      method: "PUT",
      headers: { ...proc, "content-type": "application/json" },
      body: JSON.stringify({ balancing_areas: ["11YDE-BA-TEST-X=10YDE-RWENET---I"] }),
    });
    assert.equal(cfg.status, 422, "a bad EIC is refused");
    assert.match(JSON.stringify(cfg.body), /not a valid EIC 11YDE-BA-TEST-X/);
    const ok = await call(`${s.url}/v1/console/config`, {
      method: "PUT",
      headers: { ...proc, "content-type": "application/json" },
      body: JSON.stringify({ balancing_areas: ["10YDE-RWENET---I=10YDE-RWENET---I"] }),
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.ok(
      (await storedEvents(s.kv)).some((e) =>
        e.kind === "config_changed" && /balancing_areas/.test(String(e.message))
      ),
    );
    // No sum yet: still our market-location sum.
    assert.equal((await settle()).actual_source, "market_locations");
    const f303 = (ms: number) =>
      new Date(ms).toISOString().slice(0, 16).replace(/[-T:]/g, "") + "?+00";
    const qtys = qh.map((q) =>
      `QTY+220:1.5:MWH'DTM+163:${f303(q.epochMilliseconds)}:303'DTM+164:${
        f303(q.epochMilliseconds + 900_000)
      }:303'`
    ).join("");
    const sum = "UNA:+.? 'UNB+UNOC:3+1:500+2:500+270311:0600+S1++TL'UNH+1+MSCONS:D:04B:UN:2.4c'" +
      "BGM+7+S1-1+9'UNS+D'NAD+DP'LOC+237+11XDE-EXAMPLE--H+10YDE-RWENET---I'LIN+1'" + qtys +
      "UNT+99+1'UNZ+1+S1'";
    const r = await call(`${s.url}/v1/actuals`, {
      method: "POST",
      headers: { ...ext, "content-type": "application/edifact" },
      body: sum,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((r.body as { balancing_group_sums: number }).balancing_group_sums, 1);
    const b = await settle();
    assert.equal(b.actual_source, "balancing_group_sum");
    assert.deepEqual(b.actual_mw, Array(n).fill(6)); // 1.5 MWh in a quarter-hour = 6 MW
    assert.deepEqual(b.market_location_actual_mw, a.actual_mw);
  } finally {
    await s.close();
  }
});
