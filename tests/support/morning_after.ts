/**
 * The morning after, for browser tests (issue 36): the service on a temp-file KV at a fake clock,
 * files channel, the four control areas, the TSO simulator answering from the outbox. Per area a
 * metered customer (no load profile, customer forecasts, metered quarter-hours) and a household
 * with a load profile (profile-settled); one PV park in Amprion without a forecast for tomorrow.
 *
 * - Yesterday ({@link YESTERDAY}, Tue 24 Nov 2026): day-ahead v1 sent Mon 14:00 (1,000 kW per
 *   customer), an intraday v2 from 09:00 (1,200 kW), every version confirmed; the next morning its
 *   metered quarter-hours (CSV: 1,200 kW, every fourth quarter-hour 80 kW more, every seventh 12 kW
 *   less, so most quarter-hours are exactly balanced and some are not) and, as the morning after
 *   has them, the TSOs' AEP estimate of the imbalance prices (the reBAP comes weeks later).
 * - Today ({@link TODAY}): its first version went out at 09:00, after its TSO deadline (14:30
 *   yesterday), so the frozen quarter-hours before it deviate in every area.
 * - Tomorrow ({@link TOMORROW}): sent and confirmed in time; the PV park's forecast is due 14:30
 *   Berlin today.
 *
 * The clock stands at Wed 25 Nov 2026, 10:00 Berlin.
 * @module
 */
import assert from "node:assert/strict";
import { aepEstimateFile } from "../../dev/metering_simulator.ts";
import { startTsoSimulator, type TsoSimulator } from "../../dev/tso_simulator.ts";
import { addDays, deliveryDay } from "../../lib/domain/delivery_day.ts";
import { call } from "./app.ts";
import {
  ext,
  orchestrate,
  postForecast,
  proc,
  putLocation,
  type Rig,
  rig,
  step,
} from "./day_ahead_rig.ts";
import { FILES_CHANNEL_ENV } from "./fahrplan.ts";
import { AREAS, maloId } from "./portfolio.ts";
import { importAnswers } from "./tso_answers.ts";

export const YESTERDAY = "2026-11-24";
export const TODAY = "2026-11-25";
export const TOMORROW = "2026-11-26";
/** Wed 25 Nov 10:00 Berlin. */
export const MORNING = Date.parse("2026-11-25T09:00:00Z");

/** The rig of the morning after, its clock at {@link MORNING}. */
export interface MorningAfter {
  r: Rig;
  tsos: TsoSimulator;
  inbox: string;
  /** Imports the TSOs' answers now (after the simulator wrote what is due). */
  answers(): Promise<void>;
  close(): Promise<void>;
}

const AREA_LIST = Object.values(AREAS);
/** The metered customer of area `k` (0–3). */
const customer = (k: number) => 10 + k;
/** The household with a load profile of area `k`. */
const household = (k: number) => 20 + k;
/** The PV park in Amprion. */
const PARK = 30;

/** kW of the metered customer in quarter-hour `i` of yesterday: 1,200, +80 every 4th, −12 every 7th. */
export const meteredKw = (i: number) => 1200 + (i % 4 === 1 ? 80 : 0) - (i % 7 === 3 ? 12 : 0);

/** Berlin `HH:MM` on `day` as ms since the epoch. */
const berlin = (day: string, hhmm: string) =>
  Temporal.PlainDate.from(day)
    .toZonedDateTime({ timeZone: "Europe/Berlin", plainTime: Temporal.PlainTime.from(hhmm) })
    .epochMilliseconds;

/** Builds the morning after. */
export async function morningAfter(): Promise<MorningAfter> {
  const inbox = await Deno.makeTempDir({ prefix: "bridge-morning-inbox-" });
  const r = await rig(new Date(berlin(addDays(YESTERDAY, -1), "14:00")).toISOString(), {
    ...FILES_CHANNEL_ENV,
    SCHEDULE_INBOX_DIR: inbox,
  });
  const tsos = startTsoSimulator({ outbox: r.outbox, inbox, pollMs: 0, clock: r.clock });
  const answers = async () => {
    await tsos.pump();
    await importAnswers(r.s.url);
  };
  const n = (day: string) => deliveryDay(day).quarterHours.length;
  const forecast = async (day: string, kw: number) => {
    for (const k of AREA_LIST.keys()) {
      await postForecast(r.s, customer(k), day, Array(n(day)).fill(kw));
    }
  };
  // Sent and received at once: the simulator judges the lead time at receipt.
  const send = async (day: string) => {
    for (const s of ["forecast", "aggregate", "publish", "submit"]) {
      const res = await step(r.s, day, s);
      assert.equal(res.status, 200, `${s} ${day}: ${JSON.stringify(res.body)}`);
    }
    await answers();
  };
  try {
    for (const [k, area] of AREA_LIST.entries()) {
      await putLocation(r.s, customer(k), { control_area: area, direction: "consumption" });
      await putLocation(r.s, household(k), {
        control_area: area,
        direction: "consumption",
        standard_load_profile: "H0",
        annual_kwh: 3_500_000,
      });
    }
    await putLocation(r.s, PARK, {
      control_area: AREAS.amprion,
      direction: "generation",
      name: "PV",
    });
    // Mon 14:00: yesterday's day-ahead version, in time.
    await forecast(YESTERDAY, 1000);
    await postForecast(r.s, PARK, YESTERDAY, Array(n(YESTERDAY)).fill(0));
    await send(YESTERDAY);
    r.clock.set(berlin(addDays(YESTERDAY, -1), "18:05"));
    await answers();
    // Yesterday 09:00: the intraday version.
    r.clock.set(berlin(YESTERDAY, "09:00"));
    await forecast(YESTERDAY, 1200);
    await send(YESTERDAY);
    r.clock.set(berlin(YESTERDAY, "09:05"));
    await answers();
    // Today 09:00: today's first version (late) and tomorrow's (in time).
    r.clock.set(berlin(TODAY, "09:00"));
    await forecast(TODAY, 1200);
    await postForecast(r.s, PARK, TODAY, Array(n(TODAY)).fill(0));
    await send(TODAY);
    await forecast(TOMORROW, 1200);
    await send(TOMORROW);
    r.clock.set(berlin(TODAY, "09:30"));
    await answers();
    // The metered quarter-hours of yesterday and its reBAP prices.
    const qh = deliveryDay(YESTERDAY).quarterHours;
    const rows = ["market_location_id,start,kwh"];
    for (const k of AREA_LIST.keys()) {
      qh.forEach((q, i) => rows.push(`${maloId(customer(k))},${q.toString()},${meteredKw(i) / 4}`));
    }
    qh.forEach((q) => rows.push(`${maloId(PARK)},${q.toString()},0`));
    const a = await call(`${r.s.url}/v1/actuals`, {
      method: "POST",
      headers: { ...ext, "content-type": "text/csv" },
      body: rows.join("\n"),
    });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const p = await call(`${r.s.url}/v1/imbalance-prices`, {
      method: "POST",
      headers: { ...proc, "content-type": "text/csv" },
      body: aepEstimateFile(YESTERDAY),
    });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc });
    // A pass a minute before: the orchestrator has run (nothing left to do).
    r.clock.set(MORNING - 60_000);
    const pass = await orchestrate(r.s);
    assert.equal(pass.status, 200, JSON.stringify(pass.body));
    r.clock.set(MORNING);
  } catch (err) {
    await tsos.close();
    await r.close();
    throw err;
  }
  return {
    r,
    tsos,
    inbox,
    answers,
    async close() {
      await tsos.close();
      await r.close();
      await Deno.remove(inbox, { recursive: true }).catch(() => {});
    },
  };
}
