/**
 * The day-ahead schedule (Fahrplan) of one delivery day, one aggregate version and one control
 * area, as a format-free model (docs/fahrplan.md): process type A17,
 * document type A01, classification A01, from the BRP (role A08) to the control area's TSO (role
 * A04). Two time series of non-negative MW per quarter-hour: purchase (in party = balancing
 * group, out party = counterparty) with the positive part of the open position, sale (the
 * reverse) with the magnitude of its negative part. `./render.ts` writes it as ESS 2.3 or CIM;
 * {@link validateSchedule} says whether it may leave.
 *
 * @example
 * const doc = buildSchedule({ day: "2027-03-28", aggregateVersion: 4, controlArea: "10YDE-RWENET---I",
 *   mw: aggregate.areas["10YDE-RWENET---I"], senderEic, balancingGroup, counterpartyEic,
 *   messageVersion: 1, createdAtMs: Date.now() });
 * assertValidSchedule(doc); // throws ScheduleInvalid with every problem
 * @module
 */
import { deliveryDay } from "../domain/delivery_day.ts";
import { eicProblem } from "../domain/eic.ts";
import { ScheduleInvalid } from "../domain/errors.ts";
import { tsoOf } from "./parties.ts";

/** Most characters of a message or time series identification (ESS 2.3, CIM mRID). */
export const MAX_ID_LENGTH = 35;

/** What a schedule is built from. */
export interface ScheduleInput {
  /** Delivery day, local date `YYYY-MM-DD` (Europe/Berlin). */
  day: string;
  /** Version of the aggregate the quantities come from (informational, kept on the model). */
  aggregateVersion: number;
  /** Control area EIC; also in and out area of both time series. */
  controlArea: string;
  /** Open position in MW per quarter-hour of the day (consumption +, generation −). */
  mw: readonly number[];
  /** The BRP's party EIC (sender, role A08). */
  senderEic: string;
  /** Balancing group EIC (in party of the purchase, out party of the sale; subject party). */
  balancingGroup: string;
  /** The counterparty's EIC (out party of the purchase, in party of the sale). */
  counterpartyEic: string;
  /** Message version (ESS `MessageVersion`, CIM `revisionNumber`), ≥ 1, kept by the caller. */
  messageVersion: number;
  /** Creation instant, ms since the epoch (written as UTC seconds). */
  createdAtMs: number;
  /** Control area EIC → TSO EIC, replacing the built-in receivers (`./parties.ts`). */
  tsoOverrides?: Readonly<Record<string, string>>;
  /**
   * Frozen quarter-hours (docs/intraday.md, "Frozen quarter-hours"): the first `count` positions
   * carry `reference` (MW, consumption +: the quantities of the last version the TSO has not
   * rejected; 0 where none was sent) instead of `mw`. Absent: nothing frozen.
   */
  frozen?: { count: number; reference: readonly number[] };
}

/** The frozen positions of a document and the quantities they must carry. */
export interface FrozenPositions {
  /** Positions 1…count are frozen (0: none). */
  count: number;
  /** Purchase each frozen position must carry (MW, 3 decimals), `count` values. */
  purchase: number[];
  /** Sale each frozen position must carry (MW, 3 decimals), `count` values. */
  sale: number[];
}

/** A schedule ready to render: every value as it will appear in the document. */
export interface ScheduleDocument {
  /** Delivery day, local date `YYYY-MM-DD` (Europe/Berlin). */
  day: string;
  aggregateVersion: number;
  controlArea: string;
  sender: string;
  /** The TSO of the control area ("" when none is known). */
  receiver: string;
  balancingGroup: string;
  counterparty: string;
  /** Stable per (day, sender, receiver), at most 35 characters. */
  messageId: string;
  messageVersion: number;
  /** Creation time, UTC, `YYYY-MM-DDTHH:MM:SSZ`. */
  createdAt: string;
  /** The day's interval in UTC minutes, e.g. `2027-03-27T23:00Z` … `2027-03-28T22:00Z`. */
  interval: { start: string; end: string };
  /** Quarter-hours of the day: 92, 96 or 100. */
  quarterHours: number;
  /** Purchase, MW per quarter-hour (position i + 1), ≥ 0, 3 decimals. */
  purchase: number[];
  /** Sale, MW per quarter-hour (position i + 1), ≥ 0, 3 decimals. */
  sale: number[];
  /** The frozen positions, checked by {@link validateSchedule}. */
  frozen: FrozenPositions;
}

/** A UTC instant in minutes, `YYYY-MM-DDTHH:MMZ` (ESS 2.3 and CIM time intervals). */
export function utcMinutes(instant: Temporal.Instant): string {
  return instant.toString({ smallestUnit: "minute" });
}

/** Rounds MW to 3 decimals (1 kW), never returning `-0`. */
function round3(mw: number): number {
  return Math.round(mw * 1000) / 1000 + 0;
}

/**
 * The message identification: `YYYYMMDD_TPS_` + the sender's EIC without its 3-character prefix
 * + the receiver's without its prefix, cut to 35 characters — the pattern the TSO answers in
 * tests/fixtures/fahrplan reference (e.g. `20241113_TPS_SWVIERNHEIMVRDE-EON-NE`). The same for
 * every version of a day's schedule to one receiver; the version tells them apart.
 */
export function messageIdentification(day: string, sender: string, receiver: string): string {
  return `${day.replaceAll("-", "")}_TPS_${sender.slice(3)}${receiver.slice(3)}`
    .slice(0, MAX_ID_LENGTH);
}

/**
 * The BDEW file name of a schedule: `YYYYMMDD_TPS_<sender EIC>_<receiver EIC>_<version>.xml`,
 * the version with 3 digits (e.g. `20270328_TPS_11X…_10XDE-RWENET---W_001.xml`).
 */
export function scheduleFileName(doc: ScheduleDocument): string {
  const version = String(doc.messageVersion).padStart(3, "0");
  return `${doc.day.replaceAll("-", "")}_TPS_${doc.sender}_${doc.receiver}_${version}.xml`;
}

/**
 * Builds the model of a schedule. Splits the open position: purchase = max(MW, 0), sale =
 * max(−MW, 0), each rounded to 3 decimals. Does not validate (see {@link validateSchedule}).
 * @throws {InvalidDeliveryDayError} when `day` is not a date
 */
export function buildSchedule(input: ScheduleInput): ScheduleDocument {
  const d = deliveryDay(input.day);
  const receiver = tsoOf(input.controlArea, input.tsoOverrides);
  const count = input.frozen?.count ?? 0;
  const ref = (i: number) => round3(input.frozen?.reference[i] ?? 0);
  const mw = input.mw.map((v, i) => i < count ? ref(i) : round3(v));
  const frozenMw = Array.from({ length: count }, (_, i) => ref(i));
  return {
    day: input.day,
    aggregateVersion: input.aggregateVersion,
    controlArea: input.controlArea,
    sender: input.senderEic,
    receiver,
    balancingGroup: input.balancingGroup,
    counterparty: input.counterpartyEic,
    messageId: messageIdentification(input.day, input.senderEic, receiver),
    messageVersion: input.messageVersion,
    createdAt: new Date(input.createdAtMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
    interval: { start: utcMinutes(d.start), end: utcMinutes(d.end) },
    quarterHours: d.quarterHours.length,
    purchase: mw.map((v) => Math.max(v, 0) + 0),
    sale: mw.map((v) => Math.max(-v, 0) + 0),
    frozen: {
      count,
      purchase: frozenMw.map((v) => Math.max(v, 0) + 0),
      sale: frozenMw.map((v) => Math.max(-v, 0) + 0),
    },
  };
}

const PARTIES = [
  ["sender", "sender EIC"],
  ["receiver", "receiver (the TSO of the control area)"],
  ["balancingGroup", "balancing group"],
  ["counterparty", "counterparty EIC"],
  ["controlArea", "control area"],
] as const;

/**
 * Every reason the schedule may not leave, as sentences; empty when it may. Checks: parties and
 * area configured (non-empty) with a valid EIC check character, a version from 1 to 999 (the
 * BDEW file name has 3 digits), an identification of at most 35 characters, as many positions as
 * the day has quarter-hours (92/96/100), no negative or non-finite quantity, and every frozen
 * quarter-hour carrying exactly the quantity of the version the TSO has (docs/intraday.md).
 */
export function validateSchedule(doc: ScheduleDocument): string[] {
  const problems: string[] = [];
  for (const [key, label] of PARTIES) {
    const code = doc[key];
    if (!code) {
      problems.push(`the ${label} is not configured`);
      continue;
    }
    const why = eicProblem(code);
    if (why) problems.push(`the ${label} ${code} is not a valid EIC: ${why}`);
  }
  if (!Number.isInteger(doc.messageVersion) || doc.messageVersion < 1) {
    problems.push(
      `the message version must be a whole number of at least 1, not ${doc.messageVersion}`,
    );
  } else if (doc.messageVersion > 999) {
    problems.push(
      `the message version ${doc.messageVersion} does not fit the 3 digits of the file name`,
    );
  }
  if (doc.messageId.length > MAX_ID_LENGTH) {
    problems.push(`the message identification has ${doc.messageId.length} characters; at most 35`);
  }
  for (const [name, series] of [["purchase", doc.purchase], ["sale", doc.sale]] as const) {
    if (series.length !== doc.quarterHours) {
      problems.push(
        `the ${name} has ${series.length} positions; delivery day ${doc.day} has ${doc.quarterHours} quarter-hours`,
      );
    }
    const bad = series.findIndex((v) => !Number.isFinite(v) || v < 0);
    if (bad >= 0) {
      problems.push(
        `the ${name} has quantity ${series[bad]} at position ${bad + 1}; quantities are MW ≥ 0`,
      );
    }
  }
  problems.push(...frozenProblems(doc));
  return problems;
}

/**
 * A frozen position whose quantity differs from the one the TSO has (docs/intraday.md, "Frozen
 * quarter-hours"): such a version is never sent. Names the first such position and the count.
 */
function frozenProblems(doc: ScheduleDocument): string[] {
  const f = doc.frozen;
  const bad: number[] = [];
  for (let i = 0; i < f.count; i++) {
    if (doc.purchase[i] !== f.purchase[i] || doc.sale[i] !== f.sale[i]) bad.push(i);
  }
  if (!bad.length) return [];
  const i = bad[0];
  const start = deliveryDay(doc.day).quarterHours[i]?.toString() ?? "?";
  return [
    `${bad.length} frozen quarter-hour${bad.length === 1 ? "" : "s"} would change, first position ${
      i + 1
    } (starting ${start}, inside the lead time): purchase ${doc.purchase[i]} / sale ${
      doc.sale[i]
    } MW instead of ${f.purchase[i]} / ${f.sale[i]} MW of the version the TSO has`,
  ];
}

/**
 * Refuses a schedule that may not leave.
 * @throws {ScheduleInvalid} with every problem of {@link validateSchedule}
 */
export function assertValidSchedule(doc: ScheduleDocument): void {
  const problems = validateSchedule(doc);
  if (problems.length > 0) throw new ScheduleInvalid(problems);
}
