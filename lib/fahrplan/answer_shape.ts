/**
 * The one shape of a TSO answer (ACK, CNF, ANO; ESS and CIM alike) and the small readers of parsed
 * XML that the format readers share (`answers.ts`, `cim_anomaly.ts`; docs/fahrplan.md).
 * @module
 */
import { deliveryDay, localDayOf } from "../domain/delivery_day.ts";

/** Kind of answer: acknowledgement, confirmation, anomaly report. */
export type AnswerKind = "ack" | "cnf" | "ano";

/** One time series the TSO found wrong (ESS `TimeSeriesAnomaly`, CIM `TimeSeries`). */
export interface Anomaly {
  time_series_id: string | null;
  time_series_version: number | null;
  in_party: string | null;
  out_party: string | null;
  reason_code: string | null;
  reason_text: string | null;
  /** CIM only: the party of the `Anomaly_MarketDocument` (`marketParticipant.mRID`). */
  party?: string | null;
  /** CIM only: the answered schedule's `mRID` and `revisionNumber`. */
  schedule_id?: string | null;
  schedule_version?: number | null;
  /** CIM only: `in_Domain.mRID`, `out_Domain.mRID` (control area EICs). */
  in_area?: string | null;
  out_area?: string | null;
  /** CIM only: the periods with the points found wrong (position 1-based, quantity in MW). */
  periods?: AnomalyPeriod[];
}

/** A CIM `Period` of an anomaly: its interval (UTC as written), resolution and points. */
export interface AnomalyPeriod {
  time_interval: { start: string; end: string } | null;
  /** ISO-8601 duration, e.g. `PT15M`. */
  resolution: string | null;
  points: { position: number | null; quantity: number | null }[];
}

/** A TSO answer, format-free. */
export interface TsoAnswer {
  kind: AnswerKind;
  format: "ess" | "cim";
  /** The answer's own identification. */
  message_id: string;
  /** EIC of the TSO that answered. */
  sender: string;
  /** EIC of the party answered (our sender). */
  receiver: string;
  /** When the TSO created the answer, as written (UTC, e.g. `2024-10-16T10:46:50Z`). */
  created_at: string | null;
  /** Identification of the answered schedule (ESS message identification, CIM mRID). */
  referenced_id: string | null;
  /** Version of the answered schedule (ESS message version, CIM revision number). */
  referenced_version: number | null;
  /** ACK: `true` for reason A01 (fully accepted), `false` for A02 (rejected); else `null`. */
  accepted: boolean | null;
  /** The answer's (first) reason code, e.g. `A01`, `A06`. */
  reason_code: string | null;
  reason_text: string | null;
  /** The schedule's time interval in UTC as written, when the answer carries one. */
  time_interval: { start: string; end: string } | null;
  /** The delivery day (Europe/Berlin) when the interval is exactly one local day. */
  delivery_day: string | null;
  /** ANO: every time series the TSO found wrong; `[]` for other kinds and an empty report. */
  anomalies: Anomaly[];
  /** CIM ANO only: the control area the report is about (`domain.mRID`). */
  control_area?: string | null;
}

/** A file that is not a TSO answer this service reads; `message` says why. */
export class UnreadableAnswer extends Error {
  readonly code = "ERR_FAHRPLAN_ANSWER";
  constructor(reason: string) {
    super(`Not a TSO answer: ${reason}.`);
    this.name = "UnreadableAnswer";
  }
}

/** A node of the parsed XML tree. */
// deno-lint-ignore no-explicit-any
export type Node = any;

const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/**
 * The XML text with its predefined entities and character references resolved (XML 1.0 §4.6,
 * §4.1); the parser leaves them as written because it expands no entity (no DTD entity is ever
 * expanded, docs/fahrplan.md "Schema validation").
 */
export function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, name: string) => {
    if (name[0] !== "#") return PREDEFINED[name];
    const code = name[1] === "x" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
  });
}

/** Text of a CIM element (`<x codingScheme="A01">text</x>` or `<x>text</x>`). */
export function text(node: Node): string | null {
  if (node === undefined || node === null) return null;
  if (typeof node === "string") return unescapeXml(node);
  const t = node["#text"];
  return typeof t === "string" ? unescapeXml(t) : t === undefined ? null : String(t);
}

/** A non-negative integer written in decimal digits, else `null`. */
export function int(s: string | null): number | null {
  return s !== null && /^\d+$/.test(s) ? Number(s) : null;
}

/** The Berlin delivery day an interval is exactly, else `null`. */
export function dayOf(interval: { start: string; end: string } | null): string | null {
  if (!interval) return null;
  const start = Date.parse(interval.start);
  const end = Date.parse(interval.end);
  if (!Number.isFinite(start) || !Number.isFinite(end)) return null;
  const day = localDayOf(start);
  const d = deliveryDay(day);
  return d.start.epochMilliseconds === start && d.end.epochMilliseconds === end ? day : null;
}

/** A CIM `timeInterval` (`<start>`, `<end>`), else `null`. */
export function cimInterval(node: Node): { start: string; end: string } | null {
  const start = text(node?.start);
  const end = text(node?.end);
  return start && end ? { start, end } : null;
}

/** `value`, or {@link UnreadableAnswer} naming the missing element. */
export function required(value: string | null, element: string): string {
  if (!value) throw new UnreadableAnswer(`the answer has no ${element}`);
  return value;
}
