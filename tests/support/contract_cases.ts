/**
 * The requests of the contract test (tests/integration/contract_test.ts), route by route: one day
 * of a BRP from registration to settlement on the real app with the market-platform simulator,
 * valid requests and the route's own refusals, each with the status it must get. Steps between
 * them change the world (answer files in the inbox, a platform that fails once, an outbox that is
 * a file). The request path's statuses (401, 403, 413, 405, 422 of path and query, 429, 503) are
 * made for every route by the test itself.
 * @module
 */
import { readManifest } from "../../lib/console/bundle.ts";
import type { Answer } from "./contract.ts";
import type { Rig } from "./day_ahead_rig.ts";
import { DAY } from "./day_ahead_rig.ts";
import { AREAS, maloId } from "./portfolio.ts";
import { cnfFile, TSO } from "./tso_answers.ts";
import { csvDay } from "./forecast_data.ts";
import { afterDelivery, correction } from "./contract_after_delivery.ts";

/** One request: the route (`method path` as declared), and what it must answer. */
export interface Call {
  route: string;
  /** Values of the path's `{param}`s (default {@link DEFAULTS}). */
  params?: Record<string, string>;
  /** Query string without `?`. */
  query?: string;
  headers?: Record<string, string>;
  body?: string;
  /** `none`: no credential; default the process key. */
  auth?: "process" | "external" | "none";
  expect: number;
  /** An event stream: only its head is read. */
  stream?: boolean;
}

/** A request, or a change of the world; a function sees the last answer of each route. */
export type Step = Call | ((last: (route: string) => Answer | undefined) => Promise<Call | void>);

/** Path parameter values a request uses unless it names others. */
export const DEFAULTS: Record<string, string> = {
  day: DAY,
  month: "2026-11",
  control_area: AREAS.amprion,
  malo_id: maloId(1),
  file: "theme.css",
  point_id: "52.52,13.42",
};

export const YESTERDAY = "2026-11-21";
export const UNKNOWN_DAY = "2026-11-30";
export const json = (v: unknown) => JSON.stringify(v);
const forecast = (n: number, kw: number, day = DAY) =>
  json({
    market_location_id: maloId(n),
    delivery_day: day,
    unit: "kW",
    values: Array(96).fill(kw),
  });
const location = (area: string) => json({ control_area: area, direction: "consumption" });
export const CSV = { "content-type": "text/csv" };
const step = (name: string, expect: number, day = DAY): Call => ({
  route: `post /v1/delivery-days/{day}/${name}`,
  params: { day },
  expect,
});
/** A new forecast, a new aggregate: the next submission is a new version. */
const newVersion = (kw: number): Step[] => [
  { route: "post /v1/forecasts", body: forecast(1, kw), expect: 200 },
  step("aggregate", 200),
];
export const config = (change: Record<string, unknown>, expect = 200): Call => ({
  route: "put /v1/console/config",
  body: json(change),
  expect,
});

/** The actuals of one location for the first two quarter-hours of {@link YESTERDAY} (CET). */
const ACTUALS_CSV = `market_location_id,start,kwh\r\n${maloId(1)},2026-11-21T00:00:00+01:00,25\r\n${
  maloId(1)
},2026-11-21T00:15:00+01:00,26\r\n`;

/** reBAP prices of the first quarter-hours of {@link YESTERDAY} in the TSOs' layout. */
const REBAP = "Datum;Zeitzone;von;bis;Einheit;reBAP unterdeckt;reBAP ueberdeckt\r\n" +
  "21.11.2026;CET;00:00;00:15;EUR/MWh;53,67;53,67\r\n" +
  "21.11.2026;CET;00:15;00:30;EUR/MWh;76,93;76,93\r\n";

/** Every step of the scenario, in order, on the rig `r` whose answer inbox is `inbox`. */
export function scenario(r: Rig, inbox: string): Step[] {
  return [
    { route: "get /health", auth: "none", expect: 200 },
    { route: "get /v1/openapi.json", auth: "external", expect: 200 },
    { route: "get /metrics", expect: 200 },
    { route: "get /console", auth: "none", expect: 200 },
    { route: "get /static/{file}", auth: "none", expect: 200 },
    (last) =>
      Promise.resolve({
        route: "get /static/{file}",
        auth: "none",
        headers: { "if-none-match": last("get /static/{file}")!.headers.get("etag")! },
        expect: 304,
      }),
    { route: "get /static/{file}", params: { file: "nope.css" }, auth: "none", expect: 404 },
    async () => ({
      route: "get /static/build/{file}",
      params: { file: (await readManifest())!.script },
      auth: "none",
      expect: 200,
    }),
    async (last) => ({
      route: "get /static/build/{file}",
      params: { file: (await readManifest())!.script },
      headers: { "if-none-match": last("get /static/build/{file}")!.headers.get("etag")! },
      auth: "none",
      expect: 304,
    }),
    // Master data.
    { route: "put /v1/market-locations/{malo_id}", body: location(AREAS.amprion), expect: 201 },
    { route: "put /v1/market-locations/{malo_id}", body: location(AREAS.amprion), expect: 200 },
    {
      route: "put /v1/market-locations/{malo_id}",
      params: { malo_id: maloId(2) },
      body: location(AREAS.tennet),
      expect: 201,
    },
    { route: "put /v1/market-locations/{malo_id}", expect: 422 }, // no body: input null
    { route: "get /v1/market-locations/{malo_id}", expect: 200 },
    { route: "get /v1/market-locations/{malo_id}", params: { malo_id: maloId(9) }, expect: 404 },
    {
      route: "put /v1/market-locations",
      body: json({
        market_locations: [{
          malo_id: maloId(3),
          control_area: AREAS.amprion,
          direction: "generation",
        }],
      }),
      expect: 200,
    },
    {
      route: "put /v1/market-locations",
      body: json({ market_locations: [{ malo_id: maloId(3) }, { malo_id: maloId(3) }] }),
      expect: 422,
    },
    { route: "delete /v1/market-locations/{malo_id}", params: { malo_id: maloId(3) }, expect: 204 },
    { route: "delete /v1/market-locations/{malo_id}", params: { malo_id: maloId(3) }, expect: 404 },
    { route: "get /v1/market-locations", query: "limit=1", expect: 200 },
    { route: "get /v1/market-locations", query: "limit=0", expect: 422 },
    // Forecasts and the steps.
    { route: "post /v1/forecasts", body: forecast(1, 100), expect: 200 },
    {
      route: "post /v1/forecasts",
      headers: CSV,
      body: csvDay(maloId(2), DAY, 200),
      expect: 200,
    },
    {
      route: "post /v1/forecasts",
      headers: { "content-type": "text/plain" },
      body: "x",
      expect: 415,
    },
    { route: "post /v1/forecasts", body: forecast(1, 100, YESTERDAY), expect: 409 },
    { route: "post /v1/forecasts", body: json({ forecasts: [{}] }), expect: 422 },
    step("forecast", 200),
    step("publish", 409),
    step("aggregate", 200),
    { route: "get /v1/delivery-days/{day}/open-position", auth: "external", expect: 200 },
    {
      route: "get /v1/delivery-days/{day}/open-position",
      headers: { accept: "text/csv" },
      expect: 200,
    },
    {
      route: "get /v1/delivery-days/{day}/open-position",
      params: { day: UNKNOWN_DAY },
      expect: 404,
    },
    step("publish", 200),
    // Submission to the platform: JSON, again (stored receipt), refused by the platform, ESS.
    step("submit", 200),
    step("submit", 200),
    step("submit", 409, UNKNOWN_DAY),
    ...newVersion(110),
    () => Promise.resolve(r.sim.failNext(400, json({ error: "refused" }))),
    step("submit", 502),
    config({ schedule_format: "ess" }),
    ...newVersion(120),
    step("submit", 200),
    // The files channel, the documents and the TSO's answers.
    config({ schedule_channel: "files", schedule_inbox_dir: inbox }),
    ...newVersion(130),
    step("submit", 200),
    { route: "get /v1/delivery-days/{day}/schedules/{control_area}", expect: 200 },
    {
      route: "get /v1/delivery-days/{day}/schedules/{control_area}",
      query: "format=cim&version=1",
      expect: 200,
    },
    {
      route: "get /v1/delivery-days/{day}/schedules/{control_area}",
      query: "version=99",
      expect: 404,
    },
    {
      route: "get /v1/delivery-days/{day}/schedules/{control_area}",
      query: "format=xml",
      expect: 422,
    },
    {
      route: "get /v1/delivery-days/{day}/schedules/{control_area}",
      params: { day: UNKNOWN_DAY },
      expect: 404,
    },
    { route: "get /v1/delivery-days/{day}/schedules/{control_area}/versions", expect: 200 },
    { route: "post /v1/delivery-days/{day}/schedules/{control_area}/status-request", expect: 200 },
    {
      route: "post /v1/delivery-days/{day}/schedules/{control_area}/status-request",
      params: { day: UNKNOWN_DAY },
      expect: 409,
    },
    async () => {
      await Deno.mkdir(inbox, { recursive: true });
      // Read first (by name): a newer answer would settle the rejected file by itself.
      await Deno.writeTextFile(`${inbox}/0_cnf.xml`, cnfFile(DAY, TSO.amprion, 1));
      await Deno.writeTextFile(`${inbox}/20261123_bad.xml`, "<not xml");
    },
    { route: "post /v1/schedule-responses/import", expect: 200 },
    {
      route: "post /v1/schedule-responses/rejected/{file}/acknowledge",
      params: { file: "20261123_bad.xml" },
      expect: 200,
    },
    {
      route: "post /v1/schedule-responses/rejected/{file}/acknowledge",
      params: { file: "20261123_bad.xml" },
      expect: 404,
    },
    { route: "post /v1/orchestrate", expect: 200 },
    { route: "post /v1/orchestrate", query: "wait=maybe", expect: 422 },
    // A publish target that does not take files: the outbox is a file now.
    async () => {
      await Deno.rename(r.outbox, `${r.outbox}.old`);
      await Deno.writeTextFile(r.outbox, "not a directory");
    },
    step("publish", 502),
    { route: "post /v1/delivery-days/{day}/schedules/{control_area}/status-request", expect: 502 },
    // After delivery.
    { route: "post /v1/actuals", headers: CSV, body: ACTUALS_CSV, auth: "external", expect: 200 },
    {
      route: "post /v1/actuals",
      body: json({
        actuals: [{ market_location_id: maloId(1), start: "2026-11-21T00:30:00+01:00", kwh: 24 }],
      }),
      expect: 200,
    },
    {
      route: "post /v1/actuals",
      headers: { "content-type": "text/plain" },
      body: "x",
      expect: 415,
    },
    { route: "post /v1/actuals", body: json({ actuals: [] }), expect: 422 },
    { route: "post /v1/imbalance-prices", headers: CSV, body: REBAP, expect: 200 },
    { route: "post /v1/imbalance-prices", body: "{}", expect: 415 },
    { route: "post /v1/imbalance-prices", headers: CSV, body: "Datum\r\nx\r\n", expect: 422 },
    ...afterDelivery(),
    // The console's API.
    { route: "get /v1/console/status", expect: 200 },
    { route: "get /v1/console/delivery-days", expect: 200 },
    { route: "get /v1/console/events", query: "kind=csv_published&level=info", expect: 200 },
    { route: "get /v1/console/events", query: "limit=0", expect: 422 },
    { route: "get /v1/console/passes", expect: 200 },
    { route: "get /v1/console/passes", query: "before=x", expect: 422 },
    { route: "post /v1/console/start", expect: 200 },
    { route: "post /v1/console/stop", expect: 200 },
    { route: "get /v1/console/config", expect: 200 },
    config({ intraday_lead_minutes: 30 }),
    config({ sftp_port: "none" }, 422),
    { route: "delete /v1/console/config", expect: 200 },
    { route: "post /v1/console/stream-token", expect: 200 },
    (last) =>
      Promise.resolve({
        route: "get /v1/console/events/stream",
        query: `token=${JSON.parse(last("post /v1/console/stream-token")!.body).token}`,
        auth: "none",
        stream: true,
        expect: 200,
      }),
    (last) =>
      Promise.resolve({
        route: "get /v1/console/events/stream",
        query: `token=${JSON.parse(last("post /v1/console/stream-token")!.body).token}`,
        headers: { "last-event-id": "abc" },
        auth: "none",
        expect: 422,
      }),
    ...correction(r),
  ];
}
