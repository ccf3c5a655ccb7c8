/**
 * The contract test's requests after delivery (tests/support/contract_cases.ts, whose scenario
 * calls these): the BRP's own intraday trades, the per-location deviations, the DSO's sum of a
 * MaBiS metering point and the month's clearing list with its marks, the post-delivery view, the
 * learned forecasts' models, weather; and at the end, after the day's delivery, a post-delivery correction.
 * @module
 */
import type { Rig } from "./day_ahead_rig.ts";
import { config, CSV, json, type Step, UNKNOWN_DAY, YESTERDAY } from "./contract_cases.ts";
import { AREAS, maloId } from "./portfolio.ts";

/** The BRP's own intraday trades of {@link YESTERDAY}'s first quarter-hour. */
const TRADES =
  `control_area,start,mwh,eur_mwh\r\n${AREAS.amprion},2026-11-21T00:00:00+01:00,0.5,60\r\n`;

/** The MaBiS metering point of the scenario's balancing-group sum. */
const POINT = "DE0123456000000000000000000000001";

/**
 * A balancing-group sum of {@link YESTERDAY} (MSCONS 13003 as the handbook writes it, UTC, no unit:
 * OBIS 1-1:1.29.0) of the metering point {@link POINT}, 1 kWh in every quarter-hour.
 */
function sumMscons(): string {
  const start = Date.parse("2026-11-20T23:00:00Z");
  const f303 = (ms: number) =>
    new Date(ms).toISOString().slice(0, 16).replace(/[-T:]/g, "") + "?+00";
  const qty = Array.from({ length: 96 }, (_, i) => {
    const t = start + i * 900_000;
    return `QTY+220:1.000'DTM+163:${f303(t)}:303'DTM+164:${f303(t + 900_000)}:303'`;
  }).join("");
  return "UNA:+.? 'UNB+UNOC:3+9900357000004:500+9900123000002:500+261122:0600+SUM1++TL'" +
    "UNH+1+MSCONS:D:04B:UN:2.4c'BGM+Z39+SUM1-1+9'DTM+137:202611220600?+00:303'RFF+Z13:13003'" +
    `NAD+MS+9900357000004::293'NAD+MR+9900123000002::293'UNS+D'NAD+DP'LOC+172+${POINT}'` +
    `LIN+1'PIA+5+1-1?:1.29.0:SRW'${qty}UNT+${11 + 3 * 96}+1'UNZ+1+SUM1'`;
}

/** One hour of weather at a coordinate point, and the hour after. */
const WEATHER = "point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s\r\n" +
  '"52.52,13.42",2026-11-22T08:00:00+01:00,4.5,120,6.1\r\n' +
  '"52.52,13.42",2026-11-22T09:00:00+01:00,5.0,180,5.8\r\n';

/** The after-delivery requests of the scenario (before the console's API). */
export function afterDelivery(): Step[] {
  return [
    { route: "post /v1/intraday-trades", headers: CSV, body: TRADES, expect: 200 },
    { route: "post /v1/intraday-trades", body: "{}", expect: 415 },
    { route: "post /v1/intraday-trades", headers: CSV, body: "area\r\nx\r\n", expect: 422 },
    { route: "get /v1/delivery-days/{day}/settlement", params: { day: YESTERDAY }, expect: 200 },
    {
      route: "get /v1/delivery-days/{day}/settlement/locations",
      params: { day: YESTERDAY },
      query: `control_area=${AREAS.amprion}`,
      expect: 200,
    },
    {
      route: "get /v1/delivery-days/{day}/settlement/locations",
      params: { day: YESTERDAY },
      query: `control_area=${AREAS.amprion}&format=csv`,
      expect: 200,
    },
    {
      route: "get /v1/delivery-days/{day}/settlement/locations",
      params: { day: YESTERDAY },
      expect: 422,
    },
    { route: "get /v1/settlement/months/{month}", expect: 200 },
    // The DSO's sum of a mapped MaBiS metering point, and the month's clearing list.
    {
      route: "post /v1/actuals",
      headers: { "content-type": "application/edifact" },
      body: sumMscons(),
      expect: 422, // the metering point is not mapped yet
    },
    config({ mabis_metering_points: [`${POINT}=${AREAS.amprion}/11X0-0000-0123-O`] }),
    {
      route: "post /v1/actuals",
      headers: { "content-type": "application/edifact" },
      body: sumMscons(),
      expect: 200,
    },
    { route: "get /v1/settlement/months/{month}/clearing", query: "format=csv", expect: 200 },
    { route: "get /v1/settlement/months/{month}/clearing", expect: 200 },
    {
      route: "put /v1/settlement/months/{month}/clearing/{control_area}",
      body: json({ status: "checked", note: "known", fingerprint: "0-00000000" }),
      expect: 409,
    },
    (last) =>
      Promise.resolve({
        route: "put /v1/settlement/months/{month}/clearing/{control_area}",
        body: json({
          status: "checked",
          note: "the DSO's sum is missing our two metered quarter-hours",
          fingerprint: JSON.parse(last("get /v1/settlement/months/{month}/clearing")!.body)
            .areas[0].fingerprint,
        }),
        expect: 200,
      }),
    {
      route: "put /v1/settlement/months/{month}/clearing/{control_area}",
      params: { control_area: AREAS.tennet },
      body: json({ status: "checked", note: "x", fingerprint: "x" }),
      expect: 404,
    },
    {
      route: "put /v1/settlement/months/{month}/clearing/{control_area}",
      body: json({ status: "fine" }),
      expect: 422,
    },
    { route: "get /v1/delivery-days/{day}/post-delivery", params: { day: YESTERDAY }, expect: 200 },
    // The learned forecasts: a metered location's model (made by the forecast steps before), one
    // without, and the console's list.
    { route: "get /v1/market-locations/{malo_id}/forecast-model", auth: "external", expect: 200 },
    {
      route: "get /v1/market-locations/{malo_id}/forecast-model",
      params: { malo_id: maloId(9) },
      expect: 404,
    },
    { route: "get /v1/console/forecast-models", expect: 200 },
    { route: "get /v1/console/forecast-models", query: "limit=0", expect: 422 },
    // Weather.
    { route: "post /v1/weather", headers: CSV, body: WEATHER, auth: "external", expect: 200 },
    {
      route: "post /v1/weather",
      headers: { "content-type": "text/plain" },
      body: "x",
      expect: 415,
    },
    { route: "post /v1/weather", headers: CSV, body: WEATHER.replace("120", "-1"), expect: 422 },
    { route: "get /v1/weather/points", auth: "external", expect: 200 },
    {
      route: "get /v1/weather/points/{point_id}",
      params: { point_id: "52.52,13.42" },
      query: "from=2026-11-22T07:00:00Z&to=2026-11-22T09:00:00Z",
      expect: 200,
    },
    {
      route: "get /v1/weather/points/{point_id}",
      params: { point_id: "DWD-10384" },
      query: "from=2026-11-22T07:00:00Z&to=2026-11-22T09:00:00Z",
      expect: 404,
    },
  ];
}

/** After the day's delivery: the outbox back, the clock on the next working day. */
export function correction(r: Rig): Step[] {
  return [
    // After the day's delivery: a post-delivery correction of its schedule, through the outbox
    // again, before the TSO's deadline (Tuesday 24 November 16:00 Berlin).
    async () => {
      await Deno.remove(r.outbox);
      await Deno.rename(`${r.outbox}.old`, r.outbox);
      r.clock.set(Date.parse("2026-11-24T09:00:00Z"));
    },
    config({ schedule_format: "ess", schedule_channel: "files" }),
    { route: "get /v1/delivery-days/{day}/post-delivery", expect: 200 },
    {
      route: "post /v1/delivery-days/{day}/schedules/{control_area}/post-delivery",
      body: json({ unit: "MW", quantities: Array(96).fill(0.2) }),
      expect: 200,
    },
    {
      route: "post /v1/delivery-days/{day}/schedules/{control_area}/post-delivery",
      params: { day: UNKNOWN_DAY },
      body: json({ unit: "MW", quantities: Array(96).fill(0.2) }),
      expect: 409,
    },
    {
      route: "post /v1/delivery-days/{day}/schedules/{control_area}/post-delivery",
      body: json({ unit: "kW", quantities: [] }),
      expect: 422,
    },
  ];
}
