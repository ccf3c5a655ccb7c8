/**
 * `POST /v1/weather` over HTTP on a temp-file KV (docs/weather.md): CSV hourly and quarter-hourly
 * and an Open-Meteo answer (tests/fixtures/weather) are stored with the instant they were received
 * (the injected clock) and read back per quarter-hour; the same answer again changes nothing;
 * every refusal answers 422 naming line or element and field, and stores nothing.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { weatherAsOf } from "../../lib/weather/read.ts";
import { call, startServer, storedEvents, type TestServer } from "../support/app.ts";
import { EXT, keysEnv } from "../support/keys.ts";

const FIXTURE = Deno.readTextFileSync(
  new URL("../fixtures/weather/open_meteo_berlin_2026-11-25.json", import.meta.url),
);
const HEADER = "point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s\n";
const NOW = Date.parse("2026-11-24T21:30:00Z");
const csv = { "x-api-key": EXT, "content-type": "text/csv" };
const json = { "x-api-key": EXT, "content-type": "application/json" };

const post = (s: TestServer, headers: Record<string, string>, body: string) =>
  call(`${s.url}/v1/weather`, { method: "POST", headers, body });

/** Every stored weather record (versions and points). */
async function storedWeather(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for (const prefix of ["weather", "weather_points"]) {
    for await (const _ of kv.list({ prefix: [prefix] })) n++;
  }
  return n;
}

Deno.test("POST /v1/weather: CSV hourly and quarter-hourly, stored per quarter-hour with the instant received", async () => {
  const clock = new FakeClock(NOW);
  const s = await startServer(keysEnv({ RATE_LIMIT_PER_MINUTE: "0" }), { clock });
  try {
    let r = await post(
      s,
      csv,
      HEADER +
        '"52.52,13.42",2026-11-25T11:00:00+01:00,4,100,5\r\n' +
        '"52.52,13.42",2026-11-25T11:00:00Z,6,200,7\r\n' +
        "DWD-10384,2026-11-25T10:00:00Z,1,10,2\r\n" +
        "DWD-10384,2026-11-25T10:15:00Z,2,20,3\r\n",
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = r.body as Record<string, unknown>;
    assert.equal(a.format, "csv");
    assert.equal(a.received_at, "2026-11-24T21:30:00.000Z");
    assert.deepEqual(a.points, [
      {
        point_id: "52.52,13.42",
        resolution: "hourly",
        from: "2026-11-25T10:00:00.000Z",
        to: "2026-11-25T12:00:00.000Z",
        quarter_hours: 8,
      },
      {
        point_id: "DWD-10384",
        resolution: "quarter-hourly",
        from: "2026-11-25T10:00:00.000Z",
        to: "2026-11-25T10:30:00.000Z",
        quarter_hours: 2,
      },
    ]);
    assert.deepEqual([a.added, a.changed, a.unchanged, a.versions], [10, 0, 0, 2]);
    assert.deepEqual(a.days, ["2026-11-25"]);

    // Read back over HTTP: the hourly mean in each of its quarter-hours, temperature linear.
    r = await call(
      `${s.url}/v1/weather/points/52.52,13.42?from=2026-11-25T10:00:00Z&to=2026-11-25T12:00:00Z`,
      { headers: { "x-api-key": EXT } },
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const w = r.body as Record<string, (number | null)[]> & {
      received_at: Record<string, unknown[]>;
    };
    assert.deepEqual(w.ghi_w_m2, [100, 100, 100, 100, 200, 200, 200, 200]);
    assert.deepEqual(w.temperature_c, [4, 4.5, 5, 5.5, 6, null, null, null]);
    assert.deepEqual(w.received_at.ghi_w_m2[0], "2026-11-24T21:30:00.000Z");
    assert.equal(w.quarter_hour_starts[1], "2026-11-25T10:15:00.000Z");

    const get = (path: string) => call(`${s.url}${path}`, { headers: { "x-api-key": EXT } });
    const range = "from=2026-11-25T10:00:00Z&to=2026-11-25T12:00:00Z";
    assert.equal((await get(`/v1/weather/points/DWD-99999?${range}`)).status, 404);
    r = await get(`/v1/weather/points/52.5,13.4?${range}`);
    assert.equal(r.status, 422);
    assert.deepEqual((r.body as { detail: { loc: unknown[] }[] }).detail[0].loc, [
      "path",
      "point_id",
    ]);
    r = await get(`/v1/weather/points/DWD-10384?from=2026-11-25T10:00:00Z&to=2026-11-25T10:10:00Z`);
    assert.equal(r.status, 422, "to not on a quarter-hour");
    r = await call(`${s.url}/v1/weather/points`, { headers: { "x-api-key": EXT } });
    const points = (r.body as { weather_points: { point_id: string; deliveries: number }[] })
      .weather_points;
    assert.deepEqual(points.map((p) => [p.point_id, p.deliveries]), [
      ["52.52,13.42", 1],
      ["DWD-10384", 1],
    ]);
    const ev = (await storedEvents(s.kv)).filter((e) => e.kind === "weather_received");
    assert.equal(ev.length, 1);
    assert.match(
      String(ev[0].message),
      /^acme sent weather \(CSV\) for 2 points: 52\.52,13\.42; DWD-10384, 2026-11-25 10:00 to 2026-11-25 12:00 UTC, 10 quarter-hours, received at 2026-11-24T21:30:00\.000Z: 10 new, 0 changed, 0 unchanged\.$/,
    );
  } finally {
    await s.close();
  }
});

Deno.test("POST /v1/weather: an Open-Meteo answer as it arrives; the same answer again changes nothing", async () => {
  const clock = new FakeClock(NOW);
  const s = await startServer(keysEnv({ RATE_LIMIT_PER_MINUTE: "0" }), { clock });
  try {
    let r = await post(s, json, FIXTURE);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = r.body as Record<string, unknown>;
    assert.deepEqual(a.points, [{
      point_id: "52.52,13.42",
      resolution: "hourly",
      from: "2026-11-24T22:00:00.000Z",
      to: "2026-11-26T22:15:00.000Z",
      quarter_hours: 193,
    }]);
    assert.deepEqual(a.days, ["2026-11-24", "2026-11-25", "2026-11-26"]);
    assert.deepEqual([a.added, a.changed, a.unchanged, a.versions], [193, 0, 0, 3]);

    // 12:00 Berlin (11:00Z) carries the mean of 10:00Z–11:00Z: 128 W/m²; 24.8 km/h = 6.89 m/s.
    const w = await weatherAsOf(
      s.kv,
      "52.52,13.42",
      Date.parse("2026-11-24T23:00:00Z"),
      Date.parse("2026-11-25T23:00:00Z"),
      clock.now() + 1,
    );
    assert.deepEqual(w.ghi_w_m2.slice(44, 48), [128, 128, 128, 128]);
    assert.equal(w.temperature_c[0], 3.1);
    assert.equal(w.wind_speed_m_s[0], 24.8 / 3.6);
    assert.deepEqual(
      [...new Set(w.received_ms.ghi_w_m2)],
      [NOW],
      "every value received at the request's instant",
    );

    clock.advance(3_600_000);
    r = await post(s, json, FIXTURE);
    assert.equal(r.status, 200);
    const again = r.body as Record<string, unknown>;
    assert.deepEqual([again.added, again.changed, again.unchanged, again.versions], [
      0,
      0,
      193,
      0,
    ]);
    let versions = 0;
    for await (const _ of s.kv.list({ prefix: ["weather"] })) versions++;
    assert.equal(versions, 3);
  } finally {
    await s.close();
  }
});

Deno.test("POST /v1/weather: every refusal is a 422 naming line or element and field; nothing stored", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_PER_MINUTE: "0" }), {
    clock: new FakeClock(NOW),
  });
  const om = JSON.parse(FIXTURE);
  const omWith = (patch: (o: typeof om) => void) => {
    const o = structuredClone(om);
    patch(o);
    return JSON.stringify(o);
  };
  const good = '"52.52,13.42",2026-11-25T10:00:00Z,4,100,5\n';
  const cases: [string, Record<string, string>, string, unknown[], RegExp][] = [
    [
      "a malformed point id",
      csv,
      HEADER + good + "52.5;13.4,2026-11-25T10:00:00Z,4,100,5\n",
      ["body", "line 3", "point_id"],
      /line 3: point_id 52\.5;13\.4 is not a weather point id/,
    ],
    [
      "an unknown unit",
      json,
      omWith((o) => o.hourly_units.wind_speed_100m = "Beaufort"),
      ["body", "hourly_units", "wind_speed_100m"],
      /hourly_units\.wind_speed_100m: the unit "Beaufort" is not known here/,
    ],
    [
      "a gap over 6 h",
      csv,
      HEADER + good + '"52.52,13.42",2026-11-25T17:15:00Z,4,100,5\n',
      ["body", "line 3", "temperature_c"],
      /line 3, point 52\.52,13\.42: temperature_c has no value for 7 h before this row/,
    ],
    [
      "a negative irradiance",
      json,
      omWith((o) => o.hourly.shortwave_radiation[13] = -2.5),
      ["body", "hourly", "shortwave_radiation", 13],
      /hourly\.time\[13\] \(2026-11-25T13:00\), point 52\.52,13\.42: shortwave_radiation -2\.5 is negative/,
    ],
    [
      "a non-finite irradiance",
      csv,
      HEADER + good + '"52.52,13.42",2026-11-25T11:00:00Z,4,Infinity,5\n',
      ["body", "line 3", "ghi_w_m2"],
      /line 3: ghi_w_m2 Infinity is not a finite number/,
    ],
  ];
  try {
    for (const [what, headers, body, loc, msg] of cases) {
      const r = await post(s, headers, body);
      assert.equal(r.status, 422, `${what}: ${JSON.stringify(r.body)}`);
      const item = (r.body as { detail: Record<string, unknown>[] }).detail[0];
      assert.deepEqual(item.loc, loc, what);
      assert.match(String(item.msg), msg, what);
      assert.ok("input" in item && "ctx" in item && "type" in item, what);
      assert.equal(await storedWeather(s.kv), 0, `${what}: nothing stored`);
    }
    const r = await call(`${s.url}/v1/weather`, {
      method: "POST",
      headers: { "x-api-key": EXT, "content-type": "application/xml" },
      body: "<weather/>",
    });
    assert.equal(r.status, 415);
    assert.equal((await storedEvents(s.kv)).filter((e) => e.kind === "weather_received").length, 0);
  } finally {
    await s.close();
  }
});

Deno.test("weatherAsOf: a value received later never changes what an earlier instant sees", async () => {
  const clock = new FakeClock(NOW);
  const s = await startServer(keysEnv({ RATE_LIMIT_PER_MINUTE: "0" }), { clock });
  const rows = (t: number, ghi: number, hours: number[]) =>
    HEADER +
    hours.map((h) => `P1,2026-11-25T${String(h).padStart(2, "0")}:00:00Z,${t},${ghi},3\n`)
      .join("");
  const from = Date.parse("2026-11-25T10:00:00Z"), to = Date.parse("2026-11-25T13:00:00Z");
  try {
    const t1 = clock.now();
    assert.equal((await post(s, csv, rows(1, 100, [10, 11, 12]))).status, 200);
    const before = await weatherAsOf(s.kv, "P1", from, to, t1 + 1);
    clock.advance(7_200_000);
    const t2 = clock.now();
    // A later forecast for 11:00–12:00 only.
    assert.equal((await post(s, csv, rows(9, 400, [11]))).status, 200);

    // As known at t2 (received before it): the first delivery alone, exactly as read before.
    const atT2 = await weatherAsOf(s.kv, "P1", from, to, t2);
    assert.deepEqual({ ...atT2, as_of_ms: 0 }, { ...before, as_of_ms: 0 });
    assert.deepEqual(before.ghi_w_m2, Array(12).fill(100));
    // Just after t2: the newer values where the later delivery had them, the older elsewhere.
    const after = await weatherAsOf(s.kv, "P1", from, to, t2 + 1);
    assert.deepEqual(after.ghi_w_m2, [100, 100, 100, 100, 400, 400, 400, 400, 100, 100, 100, 100]);
    assert.deepEqual(after.received_ms.ghi_w_m2.slice(3, 9), [t1, t2, t2, t2, t2, t1]);
    assert.deepEqual(after.temperature_c.slice(3, 6), [1, 9, 1]);
    // Before anything was received, nothing is known.
    const none = await weatherAsOf(s.kv, "P1", from, to, t1);
    assert.deepEqual(none.temperature_c, Array(12).fill(null));
    await assert.rejects(() => weatherAsOf(s.kv, "P1", from + 1, to, t2), RangeError);
  } finally {
    await s.close();
  }
});

Deno.test("POST /v1/weather: 120 points at once are stored in several atomics; the event names 20", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_PER_MINUTE: "0" }), {
    clock: new FakeClock(NOW),
  });
  try {
    const ids = Array.from({ length: 120 }, (_, i) => `station-${String(i).padStart(3, "0")}`);
    const r = await post(
      s,
      csv,
      HEADER + ids.map((id, i) => `${id},2026-11-25T10:00:00Z,${i / 10},${i},2\n`).join(""),
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const a = r.body as { points: unknown[]; versions: number; added: number };
    assert.deepEqual([a.points.length, a.versions, a.added], [120, 120, 480]);
    const w = await weatherAsOf(
      s.kv,
      "station-119",
      Date.parse("2026-11-25T10:00:00Z"),
      Date.parse("2026-11-25T11:00:00Z"),
      NOW + 1,
    );
    assert.deepEqual(w.ghi_w_m2, [119, 119, 119, 119]);
    const ev = (await storedEvents(s.kv)).find((e) => e.kind === "weather_received")!;
    const data = ev.data as { point_count: number; points: unknown[] };
    assert.deepEqual([data.point_count, data.points.length], [120, 20]);
    assert.match(
      String(ev.message),
      /for 120 points: station-000; station-001; station-002 and 117 more,/,
    );
  } finally {
    await s.close();
  }
});
