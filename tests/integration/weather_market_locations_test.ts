/**
 * Market locations with `weather_point`, `holiday_region` and `forecast_method` (docs/weather.md,
 * "Market locations"), single and batch `PUT`: a point that has weather is accepted and answered
 * back with the other fields (`forecast_method` `auto` when not set); a point never seen, a region
 * date-holidays does not know for Germany and an unknown method are refused with 422 at the field,
 * and nothing is stored; changing only a weather field is a change of master data (it bumps the
 * master-data version, which marks open days stale).
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { masterDataVersion } from "../../lib/pipeline/master_data.ts";
import { call, startServer, type TestServer } from "../support/app.ts";
import { EXT, keysEnv } from "../support/keys.ts";

const ext = { "x-api-key": EXT };
const BASE = { control_area: "10YDE-RWENET---I", direction: "consumption" };
const A = "51238696781", B = "41373559241";

const put = (s: TestServer, id: string, body: unknown) =>
  call(`${s.url}/v1/market-locations/${id}`, {
    method: "PUT",
    headers: ext,
    body: JSON.stringify(body),
  });
const putBatch = (s: TestServer, items: unknown[]) =>
  call(`${s.url}/v1/market-locations`, {
    method: "PUT",
    headers: ext,
    body: JSON.stringify({ market_locations: items }),
  });
const detail = (r: { body: unknown }) =>
  (r.body as { detail: { loc: unknown[]; msg: string; type: string; input: unknown }[] }).detail;

Deno.test("market locations: weather_point, holiday_region and forecast_method stored, checked, answered", async () => {
  const s = await startServer(keysEnv({ RATE_LIMIT_PER_MINUTE: "0" }), {
    clock: new FakeClock(Date.parse("2026-11-24T08:00:00Z")),
  });
  try {
    // No point has weather yet: refused at the field, nothing stored.
    let r = await put(s, A, { ...BASE, weather_point: "52.52,13.42", holiday_region: "DE-NW" });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.deepEqual(detail(r)[0].loc, ["body", "weather_point"]);
    assert.match(
      detail(r)[0].msg,
      /^weather_point: weather point 52\.52,13\.42 has never received weather here; send its weather first/,
    );
    assert.equal(detail(r)[0].type, "value_error.unknown_weather_point");
    assert.equal((await call(`${s.url}/v1/market-locations/${A}`, { headers: ext })).status, 404);

    r = await call(`${s.url}/v1/weather`, {
      method: "POST",
      headers: { ...ext, "content-type": "text/csv" },
      body:
        'point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s\n"52.52,13.42",2026-11-25T10:00:00Z,4,100,5\n',
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));

    r = await put(s, A, { ...BASE, weather_point: "52.52,13.42", holiday_region: "DE-NW" });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const stored = r.body as Record<string, unknown>;
    assert.deepEqual(
      [stored.weather_point, stored.holiday_region, stored.forecast_method],
      ["52.52,13.42", "DE-NW", "auto"],
    );
    r = await call(`${s.url}/v1/market-locations/${A}`, { headers: ext });
    assert.equal((r.body as Record<string, unknown>).forecast_method, "auto");

    // Refused at the field, the stored location unchanged.
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [
        { holiday_region: "DE-XX" },
        "holiday_region",
        /not a holiday region: expected DE or DE-<state>/,
      ],
      [{ holiday_region: "DE-NRW" }, "holiday_region", /not a holiday region/],
      [{ forecast_method: "neural" }, "forecast_method", /customer|learned|auto/],
      [{ weather_point: "52.5,13.4" }, "weather_point", /not a weather point id: .*52\.50,13\.40/],
    ];
    for (const [patch, field, msg] of cases) {
      r = await put(s, A, { ...BASE, weather_point: "52.52,13.42", ...patch });
      assert.equal(r.status, 422, JSON.stringify(patch));
      assert.deepEqual(detail(r)[0].loc, ["body", field]);
      assert.match(detail(r)[0].msg, msg);
    }
    r = await call(`${s.url}/v1/market-locations/${A}`, { headers: ext });
    assert.equal((r.body as Record<string, unknown>).holiday_region, "DE-NW");

    // Only the method changes: a change, not "unchanged"; explicit auto is the default again.
    const version = await masterDataVersion(s.kv);
    r = await putBatch(s, [{
      malo_id: A,
      ...BASE,
      weather_point: "52.52,13.42",
      holiday_region: "DE-NW",
      forecast_method: "learned",
    }]);
    assert.deepEqual(r.body, { created: 0, replaced: 1, unchanged: 0 });
    assert.equal(await masterDataVersion(s.kv), version + 1);
    r = await putBatch(s, [{
      malo_id: A,
      ...BASE,
      weather_point: "52.52,13.42",
      holiday_region: "DE-NW",
      forecast_method: "auto",
    }]);
    assert.deepEqual(r.body, { created: 0, replaced: 1, unchanged: 0 });
    r = await putBatch(s, [{
      malo_id: A,
      ...BASE,
      weather_point: "52.52,13.42",
      holiday_region: "DE-NW",
    }]);
    assert.deepEqual(r.body, { created: 0, replaced: 0, unchanged: 1 });

    // A batch naming a point never seen: refused at its index, nothing of the batch stored.
    r = await putBatch(s, [
      { malo_id: B, ...BASE, weather_point: "52.52,13.42" },
      { malo_id: A, ...BASE, weather_point: "DWD-10384" },
    ]);
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.deepEqual(detail(r).map((d) => d.loc), [[
      "body",
      "market_locations",
      1,
      "weather_point",
    ]]);
    assert.equal(detail(r)[0].input, "DWD-10384");
    assert.equal((await call(`${s.url}/v1/market-locations/${B}`, { headers: ext })).status, 404);
    r = await putBatch(s, [{ malo_id: B, ...BASE, holiday_region: "BY" }]);
    assert.deepEqual(detail(r)[0].loc, ["body", "market_locations", 0, "holiday_region"]);

    r = await call(`${s.url}/v1/market-locations`, { headers: ext });
    const page = (r.body as { market_locations: Record<string, unknown>[] }).market_locations;
    assert.deepEqual(page.map((l) => [l.malo_id, l.weather_point, l.forecast_method]), [
      [A, "52.52,13.42", "auto"],
    ]);
  } finally {
    await s.close();
  }
});
