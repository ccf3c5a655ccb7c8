/**
 * The TSO's rules for schedule versions, shared by the simulators of both channels
 * (`./tso_simulator.ts` for files, `./market_platform_simulator.ts` for the platform;
 * docs/intraday.md, "TSO simulator"): a version must be above the last one received for the same
 * message identification, and — given a clock — must not change a quarter-hour that starts within
 * the lead time at its receipt, compared with the last version accepted (0 where none). A version
 * received between the TSO deadline and 18:00 the day before is confirmed only from 18:00
 * (StromNZV § 5; the TSOs process the next day from 18:00). A version received after the day's
 * delivery ended is a post-delivery correction (docs/post-delivery.md): accepted until the
 * receiving TSO's deadline (lib/domain/tso_calendars.ts, without configured extra days), rejected
 * in words after it.
 * @module
 */
import { correctionDeadline } from "../lib/domain/tso_calendars.ts";

const ZONE = "Europe/Berlin";

/** What the rules need of a received schedule document (ESS or CIM). */
export interface ReceivedSchedule {
  id: string;
  version: number;
  /** Start of the day's interval (UTC); `null` when unreadable. */
  start: Temporal.Instant | null;
  /** End of the day's interval (UTC); `null` when unreadable. */
  end: Temporal.Instant | null;
  /** The receiving TSO's EIC (`""` when unreadable). */
  receiver: string;
  /** Quantities per time series, by position (0-based). */
  qty: number[][];
}

// deno-lint-ignore no-explicit-any
type Node = any;

/**
 * Reads what the rules need from a parsed document (fast-xml-parser, attributes prefixed `@_`,
 * namespace prefixes removed); `null` when it is neither an ESS nor a CIM schedule.
 */
export function receivedSchedule(root: Node): ReceivedSchedule | null {
  const ess = root?.ScheduleMessage;
  const cim = root?.Schedule_MarketDocument;
  if (!ess && !cim) return null;
  const text = (v: unknown) => typeof v === "object" && v ? (v as Node)["#text"] : v;
  const series: Node[] = [].concat(ess ? ess.ScheduleTimeSeries ?? [] : cim.TimeSeries ?? []);
  const qty = series.map((s) => {
    const out: number[] = [];
    const points: Node[] = [].concat(ess ? s.Period?.Interval ?? [] : s.Period?.Point ?? []);
    for (const p of points) {
      const pos = Number(ess ? p.Pos?.["@_v"] : text(p.position));
      out[pos - 1] = Number(ess ? p.Qty?.["@_v"] : text(p.quantity));
    }
    return out;
  });
  const period = cim?.["schedule_Time_Period.timeInterval"];
  const interval = String(
    ess
      ? ess.ScheduleTimeInterval?.["@_v"] ?? ""
      : `${text(period?.start) ?? ""}/${text(period?.end) ?? ""}`,
  );
  const instant = (t: string | undefined) => {
    try {
      return Temporal.Instant.from(t ?? "");
    } catch {
      return null;
    }
  };
  return {
    id: String(ess ? ess.MessageIdentification?.["@_v"] ?? "" : text(cim.mRID) ?? ""),
    version: Number(ess ? ess.MessageVersion?.["@_v"] : text(cim.revisionNumber)),
    start: instant(interval.split("/")[0]),
    end: instant(interval.split("/")[1]),
    receiver: String(
      ess
        ? ess.ReceiverIdentification?.["@_v"] ?? ""
        : text(cim["receiver_MarketParticipant.mRID"]) ?? "",
    ),
    qty,
  };
}

/** Per message identification: the last version received and the last quantities accepted. */
export type TsoMemory = Map<string, { version: number; qty: number[][] | null }>;

/**
 * Applies the rules to `doc` and remembers it.
 * @param nowMs receipt time; `null` = no clock, the lead-time rule is not applied
 * @returns the reason of a rejection in words, or `null` when the version is accepted
 */
export function judge(
  memory: TsoMemory,
  doc: ReceivedSchedule,
  nowMs: number | null,
  leadMinutes: number,
): string | null {
  const last = memory.get(doc.id);
  const why = broken(doc, last, nowMs, leadMinutes);
  memory.set(doc.id, { version: doc.version, qty: why ? last?.qty ?? null : doc.qty });
  return why;
}

function broken(
  doc: ReceivedSchedule,
  last: { version: number; qty: number[][] | null } | undefined,
  nowMs: number | null,
  leadMinutes: number,
): string | null {
  if (last && doc.version <= last.version) {
    return `version ${doc.version} is not above the last version ${last.version} received`;
  }
  if (nowMs === null || !doc.start) return null;
  if (doc.end && nowMs >= doc.end.epochMilliseconds) return afterDelivery(doc, nowMs);
  const limit = nowMs + leadMinutes * 60_000;
  for (let s = 0; s < doc.qty.length; s++) {
    for (let i = 0; i < doc.qty[s].length; i++) {
      const start = doc.start.add({ minutes: 15 * i });
      if (start.epochMilliseconds >= limit) break;
      const before = last?.qty?.[s]?.[i] ?? 0;
      if (Math.abs(doc.qty[s][i] - before) > 1e-9) {
        return `position ${
          i + 1
        } (from ${start.toString()}) changes inside the lead time of ${leadMinutes} minutes (${before} to ${
          doc.qty[s][i]
        })`;
      }
    }
  }
  return null;
}

/**
 * A version received after delivery: a post-delivery correction, accepted until the receiving
 * TSO's deadline (16:00 of the next working day by its calendar), else rejected in words.
 */
function afterDelivery(doc: ReceivedSchedule, nowMs: number): string | null {
  const day = doc.start!.toZonedDateTimeISO(ZONE).toPlainDate().toString();
  const d = correctionDeadline(doc.receiver, day);
  if (nowMs < d.deadline.epochMilliseconds) return null;
  return `a post-delivery correction of ${day} received after the deadline ${d.local} Berlin of ${d.tso_name}`;
}

/**
 * The earliest instant (epoch ms) a version received at `nowMs` may be confirmed: 18:00 Berlin the
 * day before delivery when it arrived between the TSO deadline and then, else `nowMs`.
 */
export function confirmFrom(
  start: Temporal.Instant | null,
  nowMs: number,
  tsoDeadlineLocalTime = "14:30",
): number {
  if (!start) return nowMs;
  const dayBefore = (t: string) =>
    start.toZonedDateTimeISO(ZONE).toPlainDate().subtract({ days: 1 })
      .toZonedDateTime({ timeZone: ZONE, plainTime: Temporal.PlainTime.from(t) })
      .epochMilliseconds;
  const processing = dayBefore("18:00");
  return nowMs >= dayBefore(tsoDeadlineLocalTime) && nowMs < processing ? processing : nowMs;
}
