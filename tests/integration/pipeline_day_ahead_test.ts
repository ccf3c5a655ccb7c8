/**
 * The day-ahead job end to end on the clock-change days, master-data changes that turn a
 * submitted day stale, and the largest batches. Failure paths of publish and submit:
 * `pipeline_failures_test.ts`.
 *
 * Real parts only: the app on a temp-file KV over HTTP on 127.0.0.1, the market-platform
 * simulator over TLS (its self-signed certificate trusted through MARKET_PLATFORM_CA_FILE), the
 * local outbox.
 */
import assert from "node:assert/strict";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { generateProfileForecast } from "../../lib/domain/slp/profile.ts";
import { call } from "../support/app.ts";
import {
  BEFORE_GC,
  DAY,
  dayView,
  ext,
  forDay,
  orchestrate,
  portfolio,
  proc,
  putLocation,
  rig,
  step,
} from "../support/day_ahead_rig.ts";
import { AREAS, maloId } from "../support/portfolio.ts";

for (const [day, n] of [["2026-03-29", 92], ["2026-10-25", 100]] as const) {
  Deno.test(`clock-change day ${day} (${n} quarter-hours) through ingestion, generation, aggregation, the published CSV and the submitted schedule`, async () => {
    // Two days before, 09:00 Berlin: the gate closure of the day is ahead.
    const now = Temporal.PlainDate.from(day).subtract({ days: 2 })
      .toZonedDateTime({ timeZone: "Europe/Berlin", plainTime: "09:00" }).toInstant();
    const r = await rig(now.toString(), {
      ACTIVE_CONTROL_AREAS: `${AREAS.amprion},${AREAS.tennet}`,
    });
    try {
      await putLocation(r.s, 1, {
        control_area: AREAS.amprion,
        direction: "consumption",
        standard_load_profile: "H0",
        annual_kwh: 4000,
      });
      await putLocation(r.s, 2, {
        control_area: AREAS.tennet,
        direction: "consumption",
        standard_load_profile: "G0",
        annual_kwh: 50000,
      });
      await putLocation(r.s, 3, { control_area: AREAS.amprion, direction: "generation" });
      // The PV park's customer forecast as CSV: kW = the local hour, so each row says when it is.
      const d = deliveryDay(day);
      const rows = d.quarterHours.map((q) => {
        const local = q.toZonedDateTimeISO("Europe/Berlin");
        return `${maloId(3)},${local.toString({ timeZoneName: "never" })},${local.hour}`;
      });
      const csvIn = await call(`${r.s.url}/v1/forecasts`, {
        method: "POST",
        headers: { ...ext, "content-type": "text/csv" },
        body: `market_location_id,start,kw\r\n${rows.join("\r\n")}\r\n`,
      });
      assert.equal(csvIn.status, 200, JSON.stringify(csvIn.body));

      const status = await call(`${r.s.url}/v1/console/status`, { headers: proc });
      assert.equal(
        (status.body as { orchestrator: { state: string } }).orchestrator.state,
        "stopped",
      );
      const pass = await orchestrate(r.s); // manual override: works while stopped
      assert.equal(pass.status, 200);
      const ran = (pass.body as { days: { delivery_day: string; ran: string[] }[] }).days
        .find((x) => x.delivery_day === day);
      assert.deepEqual(ran?.ran, ["forecast", "aggregate", "publish", "submit"]);

      const view = await dayView(r.s, day);
      const version = view.input_version;
      assert.equal(view.steps.submitted?.version, version);

      // One value per real quarter-hour: the H0 profile (nothing stored per profile location) and
      // the PV park's stored customer forecast.
      assert.equal((await r.s.kv.get(["forecasts", day, maloId(1)])).value, null);
      const h0 = { values: generateProfileForecast("H0", 4000, day, "DE") };
      const pv = (await r.s.kv.get<{ values: number[] }>(["forecasts", day, maloId(3)])).value!;
      assert.equal(h0.values.length, n);
      assert.equal(pv.values.length, n);

      // The published CSV: n rows, UTC 15 minutes apart, local times with the right offsets.
      const file = `${r.outbox}/open_position_${day}_v${version}.csv`;
      assert.equal(view.steps.published?.detail.location, file);
      const lines = (await Deno.readTextFile(file)).split("\r\n").filter((l) => l !== "");
      assert.equal(lines.length, n + 1);
      assert.deepEqual(lines[0].split(","), [
        "quarter_hour_start_utc",
        "quarter_hour_start_local",
        AREAS.amprion,
        AREAS.tennet,
      ]);
      const cells = lines.slice(1).map((l) => l.split(","));
      cells.forEach((c, i) => {
        assert.equal(c[0], d.quarterHours[i].toString());
        assert.equal(Temporal.Instant.from(c[1]).toString(), c[0], `row ${i + 1} local = UTC`);
      });
      const locals = cells.map((c) => c[1].slice(11));
      if (n === 92) {
        assert.ok(!locals.some((t) => t.startsWith("02:")), "02:00–03:00 does not exist");
        assert.deepEqual(locals.slice(7, 9), ["01:45:00+01:00", "03:00:00+02:00"]);
      } else {
        assert.deepEqual(locals.slice(8, 16), [
          "02:00:00+02:00",
          "02:15:00+02:00",
          "02:30:00+02:00",
          "02:45:00+02:00",
          "02:00:00+01:00",
          "02:15:00+01:00",
          "02:30:00+01:00",
          "02:45:00+01:00",
        ]);
      }
      // Consumption positive, generation negative: amprion = H0 − PV, per real quarter-hour.
      cells.forEach((c, i) => {
        const expected = Math.round((h0.values[i] - pv.values[i]) * 1000) / 1e6;
        assert.equal(Number(c[2]), expected, `amprion row ${i + 1}`);
      });

      // The submitted schedule: the same n values per control area, the day's UTC interval.
      const subs = forDay(r.sim, day);
      assert.equal(subs.length, 1);
      const body = subs[0].body as typeof subs[0]["body"] & {
        time_interval: { start: string; end: string };
        resolution: string;
      };
      assert.equal(subs[0].idempotency_key, `${day}-v${version}`);
      assert.deepEqual(body.time_interval, { start: d.start.toString(), end: d.end.toString() });
      assert.equal(body.resolution, "PT15M");
      for (const [col, area] of [[2, AREAS.amprion], [3, AREAS.tennet]] as const) {
        const q = body.schedules.find((x) => x.control_area === area)!.quantities;
        assert.equal(q.length, n);
        assert.deepEqual(q, cells.map((c) => Number(c[col])));
      }
      const op = await call(`${r.s.url}/v1/delivery-days/${day}/open-position`, { headers: ext });
      assert.deepEqual(
        (op.body as { areas: Record<string, number[]> }).areas[AREAS.amprion],
        body.schedules.find((x) => x.control_area === AREAS.amprion)!.quantities,
      );
    } finally {
      await r.close();
    }
  });
}

Deno.test("master data: a market location moving to another area makes the submitted day stale; the next pass resubmits", async () => {
  const r = await rig(BEFORE_GC, { ACTIVE_CONTROL_AREAS: `${AREAS.amprion},${AREAS.tennet}` });
  try {
    await portfolio(r.s);
    await orchestrate(r.s);
    const before = await dayView(r.s, DAY);
    assert.equal(before.steps.submitted?.stale, false);
    assert.equal(forDay(r.sim, DAY).length, 1);

    // Re-sending identical master data changes nothing.
    await putLocation(r.s, 1, { control_area: AREAS.amprion, direction: "consumption" });
    assert.equal((await dayView(r.s, DAY)).input_version, before.input_version);

    r.clock.advance(15 * 60_000); // 09:15 Berlin
    await putLocation(r.s, 1, { control_area: AREAS.tennet, direction: "consumption" });
    const stale = await dayView(r.s, DAY);
    assert.equal(stale.input_version, before.input_version + 1);
    assert.equal(stale.last_input?.source, "master_data");
    for (const name of ["aggregated", "published", "submitted"] as const) {
      assert.equal(stale.steps[name]?.stale, true, name);
      assert.match(
        String(stale.steps[name]?.stale_reason),
        /^master data changed for 1 market location at 09:15 Berlin/,
      );
    }
    const pass = await orchestrate(r.s);
    const ran = (pass.body as { days: { delivery_day: string; ran: string[] }[] }).days
      .find((d) => d.delivery_day === DAY);
    assert.deepEqual(ran?.ran, ["forecast", "aggregate", "publish", "submit"]);
    const subs = forDay(r.sim, DAY);
    assert.equal(subs.length, 2);
    assert.equal(subs[1].idempotency_key, `${DAY}-v${stale.input_version}`);
    const q = (area: string) =>
      subs[1].body.schedules.find((x) => x.control_area === area)!.quantities;
    assert.deepEqual(q(AREAS.amprion), Array(96).fill(0));
    assert.deepEqual(q(AREAS.tennet), Array(96).fill(0.3));

    // Removing a profile removes the profile forecast it had produced.
    r.clock.advance(60_000);
    await putLocation(r.s, 3, {
      control_area: AREAS.amprion,
      direction: "consumption",
      standard_load_profile: "G0",
      annual_kwh: 100_000,
    });
    await orchestrate(r.s);
    const g0 = forDay(r.sim, DAY).at(-1)!.body.schedules.find((x) =>
      x.control_area === AREAS.amprion
    )!;
    assert.ok(g0.quantities.every((v) => v > 0), "G0 profile forecast in amprion");
    await putLocation(r.s, 3, { control_area: AREAS.amprion, direction: "consumption" });
    await orchestrate(r.s);
    assert.equal((await r.s.kv.get(["forecasts", DAY, maloId(3)])).value, null);
    const last = forDay(r.sim, DAY).at(-1)!.body.schedules.find((x) =>
      x.control_area === AREAS.amprion
    )!;
    assert.deepEqual(last.quantities, Array(96).fill(0));
    // Deleting a location marks the day stale too.
    const v = (await dayView(r.s, DAY)).input_version;
    assert.equal(
      (await call(`${r.s.url}/v1/market-locations/${maloId(2)}`, {
        method: "DELETE",
        headers: ext,
      }))
        .status,
      204,
    );
    assert.equal((await dayView(r.s, DAY)).input_version, v + 1);
  } finally {
    await r.close();
  }
});

Deno.test("largest batches: 500 market locations and 500 forecasts of a 100-quarter-hour day, each in one request", async () => {
  const r = await rig(BEFORE_GC, { ACTIVE_CONTROL_AREAS: AREAS.amprion });
  try {
    const day = "2027-10-31"; // 100 quarter-hours
    await portfolio(r.s);
    await step(r.s, DAY, "aggregate");
    const locations = Array.from({ length: 500 }, (_, i) => ({
      malo_id: maloId(1000 + i),
      control_area: AREAS.amprion,
      direction: "consumption",
    }));
    const put = await call(`${r.s.url}/v1/market-locations`, {
      method: "PUT",
      headers: ext,
      body: JSON.stringify({ market_locations: locations }),
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.deepEqual(put.body, { created: 500, replaced: 0, unchanged: 0 });
    const view = await dayView(r.s, DAY);
    assert.equal(view.steps.aggregated?.stale, true, "the aggregated day turned stale");
    assert.equal(view.last_input?.market_locations, 500);

    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const forecasts = locations.map((l) => ({
      market_location_id: l.malo_id,
      delivery_day: day,
      unit: "kW",
      values: Array.from({ length: 100 }, () => random() * 10_000),
    }));
    const posted = await call(`${r.s.url}/v1/forecasts`, {
      method: "POST",
      headers: ext,
      body: JSON.stringify({ forecasts }),
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body).slice(0, 300));
    assert.deepEqual((posted.body as { results: unknown[] }).results, [
      { delivery_day: day, changed: 500, unchanged: 0, input_version: 1 },
    ]);
    assert.equal((await step(r.s, day, "aggregate")).status, 200);
    const op = await call(`${r.s.url}/v1/delivery-days/${day}/open-position`, { headers: ext });
    const mw = (op.body as { areas: Record<string, number[]> }).areas[AREAS.amprion];
    assert.equal(mw.length, 100);
    const sum = (i: number) => forecasts.reduce((acc, f) => acc + f.values[i], 0) / 1000;
    for (const i of [0, 8, 12, 99]) assert.ok(Math.abs(mw[i] - sum(i)) < 1e-5, `quarter-hour ${i}`);
  } finally {
    await r.close();
  }
});
