/**
 * Weather deliveries read and turned into quarter-hours (docs/weather.md): the CSV hourly and
 * quarter-hourly, an Open-Meteo answer after its documented format (tests/fixtures/weather,
 * SOURCE.md) — its local times shifted by `utc_offset_seconds`, `shortwave_radiation` as the mean
 * of the hour before its time, units converted — and each refusal in words naming line and field.
 */
import assert from "node:assert/strict";
import { weatherFromCsv } from "../../lib/weather/csv.ts";
import { weatherFromOpenMeteo } from "../../lib/weather/open_meteo.ts";
import { WeatherInputRefused, WeatherIssues } from "../../lib/weather/refusal.ts";
import {
  checkDelivery,
  type PointDelivery,
  QH_MS,
  toQuarterHours,
} from "../../lib/weather/samples.ts";
import { coordinatePointId, weatherPointProblem } from "../../lib/domain/weather_point.ts";

const FIXTURE = JSON.parse(
  Deno.readTextFileSync(
    new URL("../fixtures/weather/open_meteo_berlin_2026-11-25.json", import.meta.url),
  ),
);
const HEADER = "point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s\n";
const at = (iso: string) => Date.parse(iso);
const arr = (a: Float64Array) => Array.from(a, (x) => (Number.isNaN(x) ? null : +x.toFixed(6)));

/** The issues of a refusal, checked as a whole delivery is (fails when nothing is refused). */
function refusal(fn: () => PointDelivery[]): { loc: unknown[]; msg: string; type: string }[] {
  try {
    const issues = new WeatherIssues();
    for (const d of fn()) checkDelivery(d, issues);
    issues.throwIfAny();
  } catch (err) {
    assert.ok(err instanceof WeatherInputRefused, String(err));
    return err.issues;
  }
  assert.fail("not refused");
}

Deno.test("weather point ids: lat,lon with two decimals or a name; one spelling per place", () => {
  assert.equal(coordinatePointId(52.52, 13.419998), "52.52,13.42");
  assert.equal(coordinatePointId(-0.001, 7.004), "0.00,7.00");
  for (const ok of ["52.52,13.42", "-33.87,151.21", "DWD-10384", "park_nord"]) {
    assert.equal(weatherPointProblem(ok), undefined, ok);
  }
  assert.match(weatherPointProblem("52.5,13.4")!, /this one: 52\.50,13\.40/);
  assert.match(weatherPointProblem("91.00,13.00")!, /latitude 91\.00 is outside/);
  assert.match(weatherPointProblem("-0.00,1.00")!, /write it 0\.00,1\.00/);
  assert.ok(weatherPointProblem("Wetter Süd"));
  assert.ok(weatherPointProblem(""));
});

Deno.test("CSV hourly: irradiance means fill their four quarter-hours, temperature and wind are linear", () => {
  const [d] = weatherFromCsv(
    HEADER +
      '"52.52,13.42",2026-11-25T11:00:00+01:00,4,100,5\n' +
      '"52.52,13.42",2026-11-25T11:00:00Z,6,200,7\n',
  );
  assert.equal(d.point, "52.52,13.42");
  assert.equal(d.stepMs, 3_600_000);
  const q = toQuarterHours(d);
  assert.equal(q.start, at("2026-11-25T10:00:00Z"));
  assert.deepEqual(arr(q.values.ghi_w_m2), [100, 100, 100, 100, 200, 200, 200, 200]);
  assert.deepEqual(arr(q.values.temperature_c), [4, 4.5, 5, 5.5, 6, null, null, null]);
  assert.deepEqual(arr(q.values.wind_speed_m_s), [5, 5.5, 6, 6.5, 7, null, null, null]);
  // The energy of each hour is kept: the mean of its quarter-hours is the hourly mean.
  const g = q.values.ghi_w_m2;
  assert.equal((g[4] + g[5] + g[6] + g[7]) / 4, 200);
});

Deno.test("CSV quarter-hourly: each row is its quarter-hour; a gap of up to 6 h is bridged for temperature and wind, not irradiance", () => {
  const [d] = weatherFromCsv(
    HEADER +
      "DWD-10384,2026-11-25T10:00:00Z,1,10,2\n" +
      "DWD-10384,2026-11-25T10:15:00Z,2,20,3\n" +
      "DWD-10384,2026-11-25T11:00:00Z,5,50,6\n",
  );
  assert.equal(d.stepMs, QH_MS);
  const q = toQuarterHours(d);
  assert.deepEqual(arr(q.values.ghi_w_m2), [10, 20, null, null, 50]);
  assert.deepEqual(arr(q.values.temperature_c), [1, 2, 3, 4, 5]);
  assert.deepEqual(arr(q.values.wind_speed_m_s), [2, 3, 4, 5, 6]);
});

Deno.test("Open-Meteo: local times less utc_offset_seconds; shortwave_radiation is the hour before; km/h → m/s", () => {
  const [d] = weatherFromOpenMeteo(FIXTURE);
  assert.equal(d.point, "52.52,13.42");
  assert.equal(d.names.wind_speed_m_s, "wind_speed_100m");
  const q = toQuarterHours(d);
  // "2026-11-25T00:00" local with offset 3600 s is 2026-11-24T23:00Z; its radiation is the mean
  // of [22:00Z, 23:00Z), so the first quarter-hour is 22:00Z.
  assert.equal(q.start, at("2026-11-24T22:00:00Z"));
  const idx = (iso: string) => (at(iso) - q.start) / QH_MS;
  // 12:00 local (11:00Z) carries 128 W/m², the mean of 10:00Z–11:00Z.
  for (const m of ["10:00", "10:15", "10:30", "10:45"]) {
    assert.equal(q.values.ghi_w_m2[idx(`2026-11-25T${m}:00Z`)], 128, m);
  }
  assert.equal(q.values.ghi_w_m2[idx("2026-11-25T11:00:00Z")], 119);
  // Temperature at its instant, linear in between: 11:30Z is 12:30 local, half-way from 12:00
  // local (4.9 °C) to 13:00 local (5.2 °C).
  assert.equal(q.values.temperature_c[idx("2026-11-24T23:00:00Z")], 3.1);
  assert.equal(+q.values.temperature_c[idx("2026-11-25T11:30:00Z")].toFixed(6), 5.05);
  assert.equal(q.values.wind_speed_m_s[idx("2026-11-24T23:00:00Z")], 24.8 / 3.6);
  // The answer's irradiance energy, hour by hour, equals the quarter-hours' (W h/m²).
  const hourly = FIXTURE.hourly.shortwave_radiation.reduce((s: number, x: number) => s + x, 0);
  const quarter = q.values.ghi_w_m2.reduce((s, x) => s + (Number.isNaN(x) ? 0 : x / 4), 0);
  assert.equal(quarter, hourly);
  // 48 hours: 48 irradiance hours (from 22:00Z) and temperature up to the last instant (22:00Z).
  assert.equal(q.values.ghi_w_m2.length, 4 * 48 + 1);
  assert.ok(Number.isNaN(q.values.ghi_w_m2[4 * 48]));
});

Deno.test("Open-Meteo: unixtime, °F, m/s, kn and mp/h are converted; several locations at once", () => {
  const times = FIXTURE.hourly.time.map((t: string) => (Date.parse(`${t}:00Z`) - 3600_000) / 1000);
  const variant = (unit: string, wind: string, factor: number) => ({
    ...FIXTURE,
    latitude: 48.14,
    longitude: 11.58,
    hourly_units: {
      time: "unixtime",
      temperature_2m: "°F",
      shortwave_radiation: "W/m²",
      [wind]: unit,
    },
    hourly: {
      time: times,
      temperature_2m: FIXTURE.hourly.temperature_2m.map((c: number) => c * 9 / 5 + 32),
      shortwave_radiation: FIXTURE.hourly.shortwave_radiation,
      [wind]: FIXTURE.hourly.wind_speed_100m.map((k: number) => k / 3.6 / factor),
    },
  });
  for (
    const [unit, wind, factor] of [
      ["m/s", "wind_speed_10m", 1],
      ["kn", "windspeed_100m", 1852 / 3600],
      ["mp/h", "wind_speed_100m", 0.44704],
    ] as const
  ) {
    const [a, b] = weatherFromOpenMeteo([FIXTURE, variant(unit, wind, factor)]);
    assert.equal(b.point, "48.14,11.58");
    const qa = toQuarterHours(a), qb = toQuarterHours(b);
    assert.equal(qb.start, qa.start, unit);
    for (const v of ["temperature_c", "wind_speed_m_s", "ghi_w_m2"] as const) {
      assert.deepEqual(arr(qb.values[v]), arr(qa.values[v]), `${unit} ${v}`);
    }
  }
});

Deno.test("Open-Meteo: an unknown or missing unit is refused, never guessed", () => {
  const units = (u: Record<string, string | undefined>) => ({
    ...FIXTURE,
    hourly_units: { ...FIXTURE.hourly_units, ...u },
  });
  let issues = refusal(() => weatherFromOpenMeteo(units({ temperature_2m: "K" })));
  assert.deepEqual(issues[0].loc, ["body", "hourly_units", "temperature_2m"]);
  assert.match(issues[0].msg, /the unit "K" is not known here: temperature_2m is read in °C, °F/);
  assert.equal(issues[0].type, "value_error.unit");
  issues = refusal(() => weatherFromOpenMeteo(units({ wind_speed_100m: "bft" })));
  assert.match(issues[0].msg, /hourly_units\.wind_speed_100m: the unit "bft" is not known/);
  issues = refusal(() => weatherFromOpenMeteo(units({ shortwave_radiation: undefined })));
  assert.match(issues[0].msg, /hourly_units\.shortwave_radiation: missing/);
  issues = refusal(() => weatherFromOpenMeteo(units({ time: "rfc3339" })));
  assert.match(issues[0].msg, /hourly_units\.time: "rfc3339" is not known here/);
});

Deno.test("Open-Meteo: bad values, a long gap, an error answer and a missing variable are refused by place", () => {
  const withRad = (i: number, x: unknown) => {
    const rad = [...FIXTURE.hourly.shortwave_radiation];
    rad[i] = x;
    return { ...FIXTURE, hourly: { ...FIXTURE.hourly, shortwave_radiation: rad } };
  };
  let issues = refusal(() => weatherFromOpenMeteo(withRad(12, -4)));
  assert.deepEqual(issues[0].loc, ["body", "hourly", "shortwave_radiation", 12]);
  assert.match(
    issues[0].msg,
    /hourly\.time\[12\] \(2026-11-25T12:00\), point 52\.52,13\.42: shortwave_radiation -4 is negative/,
  );
  issues = refusal(() => weatherFromOpenMeteo(withRad(12, "n/a")));
  assert.match(
    issues[0].msg,
    /hourly\.shortwave_radiation\[12\] \(2026-11-25T12:00\): "n\/a" is not a number or null/,
  );
  // Seven hours of null inside the series: a gap over 6 h.
  const temp = [...FIXTURE.hourly.temperature_2m];
  for (let i = 10; i < 17; i++) temp[i] = null;
  issues = refusal(() =>
    weatherFromOpenMeteo({ ...FIXTURE, hourly: { ...FIXTURE.hourly, temperature_2m: temp } })
  );
  assert.deepEqual(issues[0].loc, ["body", "hourly", "temperature_2m", 17]);
  assert.match(
    issues[0].msg,
    /temperature_2m has no value for 7 h before this row \(since hourly\.time\[9\]/,
  );
  assert.equal(issues[0].type, "value_error.gap");
  issues = refusal(() =>
    weatherFromOpenMeteo({ error: true, reason: "Latitude must be in range" })
  );
  assert.match(issues[0].msg, /an Open-Meteo error answer, not weather: Latitude must be in range/);
  const { wind_speed_100m: _, ...noWind } = FIXTURE.hourly;
  issues = refusal(() => weatherFromOpenMeteo([FIXTURE, { ...FIXTURE, hourly: noWind }]));
  assert.deepEqual(issues[0].loc, ["body", 1, "hourly", "wind_speed_100m"]);
  assert.match(
    issues[0].msg,
    /\[1\]\.hourly\.wind_speed_100m: missing \(expected wind_speed_100m or/,
  );
});

Deno.test("CSV: exactly 6 h without a row are bridged; 7 h are not", () => {
  const [d] = weatherFromCsv(
    HEADER + "P1,2026-11-25T10:00:00Z,1,2,3\nP1,2026-11-25T17:00:00Z,8,9,10\n",
  );
  const issues = new WeatherIssues();
  checkDelivery(d, issues);
  assert.equal(issues.count, 0);
  const q = toQuarterHours(d);
  assert.equal(q.values.temperature_c[4], 2); // 11:00Z, one seventh of the way
  assert.ok(Number.isNaN(q.values.ghi_w_m2[4])); // no irradiance made up for 11:00–17:00
});

Deno.test("CSV refusals name line and field", () => {
  const rows = (...r: string[]) => () => weatherFromCsv(HEADER + r.join("\n") + "\n");
  const cases: [() => PointDelivery[], unknown[], RegExp, string][] = [
    [
      rows("52.5:13.4,2026-11-25T10:00:00Z,1,2,3"),
      ["body", "line 2", "point_id"],
      /line 2: point_id 52\.5:13\.4 is not a weather point id/,
      "value_error.weather_point",
    ],
    [
      rows("52.52,13.42,2026-11-25T10:00:00Z,1,2,3"),
      ["body", "line 2"],
      /expected 5 fields, got 6 \(a point id lat,lon holds a comma: quote it, "52\.52,13\.42"\)/,
      "value_error.csv",
    ],
    [
      rows("P1,2026-11-25T10:00:00Z,1,2,3", "P1,2026-11-25T11:00:00Z,1,-0.5,3"),
      ["body", "line 3", "ghi_w_m2"],
      /line 3, point P1: ghi_w_m2 -0\.5 is negative/,
      "value_error.irradiance",
    ],
    [
      rows("P1,2026-11-25T10:00:00Z,1,NaN,3"),
      ["body", "line 2", "ghi_w_m2"],
      /line 2: ghi_w_m2 NaN is not a finite number/,
      "value_error.irradiance",
    ],
    [
      rows("P1,2026-11-25T10:00:00Z,1,2,3", "P1,2026-11-25T18:00:00Z,1,2,3"),
      ["body", "line 3", "temperature_c"],
      /line 3, point P1: temperature_c has no value for 7 h before this row \(since line 2\)/,
      "value_error.gap",
    ],
    [
      rows("P1,2026-11-25T10:07:00Z,1,2,3"),
      ["body", "line 2", "start"],
      /is not the start of a quarter-hour/,
      "value_error.quarter_hour",
    ],
    [
      rows("P1,2026-11-25 10:00,1,2,3"),
      ["body", "line 2", "start"],
      /is not ISO 8601 with an offset/,
      "value_error.time",
    ],
    [
      rows("P1,2026-11-25T10:00:00Z,281.15,2,3"),
      ["body", "line 2", "temperature_c"],
      /temperature_c 281\.15 is not an air temperature in °C/,
      "value_error.range",
    ],
  ];
  for (const [fn, loc, msg, type] of cases) {
    const issues = refusal(fn);
    assert.deepEqual(issues[0].loc, loc, String(msg));
    assert.match(issues[0].msg, msg);
    assert.equal(issues[0].type, type);
  }
});
