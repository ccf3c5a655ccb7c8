/**
 * The rig of the intraday walks (docs/intraday.md): the service on the `files` channel with one
 * control area (Amprion), the TSO simulator answering from the outbox on the service's fake clock,
 * and helpers to set the clock to a Berlin wall-clock time, post a flat forecast, run one
 * orchestrator pass, import the answers and read a version's document from the outbox.
 * @module
 */
import assert from "node:assert/strict";
import { XMLParser } from "fast-xml-parser";
import { startTsoSimulator, type TsoSimulator } from "../../dev/tso_simulator.ts";
import { addDays, quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { type ScheduleVersionRecord, versionHistory } from "../../lib/fahrplan/history.ts";
import { orchestrate, postForecast, putLocation, type Rig, rig } from "./day_ahead_rig.ts";
import { FILES_CHANNEL_ENV, PARTIES } from "./fahrplan.ts";
import { AREAS } from "./portfolio.ts";
import { importAnswers } from "./tso_answers.ts";

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" });

/** A running walk over one delivery day. */
export interface Walk {
  r: Rig;
  tsos: TsoSimulator;
  day: string;
  inbox: string;
  /** Sets the clock to `HH:MM` Berlin on the delivery day + `offset` days. */
  at(offset: number, hhmm: string): void;
  /** Posts a forecast of location 1 for the day: `kw` per quarter-hour (a number: flat). */
  forecast(kw: number | number[]): Promise<void>;
  /**
   * One orchestrator pass, then the simulator answers and the inbox is imported.
   * @returns the steps the pass ran for the walk's day
   */
  pass(): Promise<string[]>;
  /** The simulator answers what is due now; the inbox is imported. */
  answers(): Promise<void>;
  /** The version history of the day in Amprion. */
  history(): Promise<ScheduleVersionRecord[]>;
  /** The purchase quantities of version `n` of the day's Amprion document, as written. */
  purchase(n: number): Promise<string[]>;
  /** The day's Amprion document file names in the outbox, sorted. */
  files(): string[];
  close(): Promise<void>;
}

/** The TSO of Amprion (the receiver of the walk's documents). */
export const TSO = "10XDE-RWENET---W";

/**
 * Starts a walk over `day` at 09:00 Berlin two days before it, with one consumption market
 * location in Amprion.
 * @param rejectIf the simulator's extra rejection (see `startTsoSimulator`)
 * @param env more environment of the service (e.g. `SCHEDULE_FORMAT: "cim"`)
 */
export async function startWalk(
  day: string,
  rejectIf?: (file: string) => string | null,
  env: Record<string, string> = {},
): Promise<Walk> {
  const inbox = await Deno.makeTempDir({ prefix: "bridge-intraday-inbox-" });
  const berlin = (offset: number, hhmm: string) =>
    Temporal.PlainDate.from(addDays(day, offset))
      .toZonedDateTime({ timeZone: "Europe/Berlin", plainTime: Temporal.PlainTime.from(hhmm) })
      .epochMilliseconds;
  const r = await rig(new Date(berlin(-2, "09:00")).toISOString(), {
    ...FILES_CHANNEL_ENV,
    ACTIVE_CONTROL_AREAS: AREAS.amprion,
    SCHEDULE_INBOX_DIR: inbox,
    ORCHESTRATOR_HORIZON_DAYS: "2",
    ...env,
  });
  const tsos = startTsoSimulator({
    outbox: r.outbox,
    inbox,
    pollMs: 0,
    clock: r.clock,
    rejectIf,
  });
  await putLocation(r.s, 1, { control_area: AREAS.amprion, direction: "consumption" });
  const compact = day.replaceAll("-", "");
  const prefix = `${compact}_TPS_${PARTIES.sender}_${TSO}_`;
  const files = () =>
    [...Deno.readDirSync(r.outbox)].map((f) => f.name).filter((f) => f.startsWith(prefix))
      .sort();
  const answers = async () => {
    await tsos.pump();
    await importAnswers(r.s.url);
  };
  const count = quarterHourCount(day);
  return {
    r,
    tsos,
    day,
    inbox,
    at: (offset, hhmm) => r.clock.set(berlin(offset, hhmm)),
    forecast: (kw) =>
      postForecast(r.s, 1, day, typeof kw === "number" ? Array(count).fill(kw) : kw),
    async pass() {
      const p = await orchestrate(r.s);
      assert.equal(p.status, 200, JSON.stringify(p.body));
      await answers();
      const days = (p.body as { days: { delivery_day: string; ran: string[] }[] }).days;
      return days.find((d) => d.delivery_day === day)?.ran ?? [];
    },
    answers,
    history: () => versionHistory(r.s.kv, day, AREAS.amprion),
    async purchase(n) {
      const text = await Deno.readTextFile(
        `${r.outbox}/${prefix}${String(n).padStart(3, "0")}.xml`,
      );
      const series = xml.parse(text).ScheduleMessage.ScheduleTimeSeries;
      const points = [].concat(series[0].Period.Interval) as { Qty: { "@v": string } }[];
      return points.map((p) => p.Qty["@v"]);
    },
    files,
    async close() {
      await tsos.close();
      await r.close();
      await Deno.remove(inbox, { recursive: true }).catch(() => {});
    },
  };
}
