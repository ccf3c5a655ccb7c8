/**
 * Applying one TSO answer to a day's and area's schedule status and telling the operator
 * (docs/fahrplan.md): the same for an answer file from the
 * inbox and for a state the market platform reports. The status changes through
 * {@link applyAnswer} (an answer about an older version never overwrites a newer one's status);
 * when it changed, one event: `schedule_acknowledged`, `schedule_confirmed` (info),
 * `schedule_rejected`, `anomaly_reported` (error: the schedule does not stand as sent, the
 * operator must act), each a sentence (docs/console.md, "Errors in words"). Any answer for a day
 * and area settles the answer files rejected before it for them (`./rejected_answers.ts`).
 * @module
 */
import type { Clock } from "../clock.ts";
import type { EventLog } from "../store/events.ts";
import type { EventKind } from "../wire/events.ts";
import { recordVersionAnswer } from "./history.ts";
import { settleRejected } from "./rejected_answers.ts";
import { applyAnswer, type TsoState, tsoStatusOf } from "./tso_status.ts";

/** What an answer does to a status: the event kind and level of each state. */
export const STATUS_OF: Record<
  Exclude<TsoState, "sent">,
  { event: EventKind; level: "info" | "error"; verb: string }
> = {
  acknowledged: { event: "schedule_acknowledged", level: "info", verb: "acknowledged" },
  rejected: { event: "schedule_rejected", level: "error", verb: "rejected" },
  confirmed: { event: "schedule_confirmed", level: "info", verb: "confirmed" },
  anomaly: { event: "anomaly_reported", level: "error", verb: "reported an anomaly in" },
};

/**
 * The event's sentence: "The TSO 10XDE-VE-TRANSMK reported an anomaly in the schedule of
 * 2026-11-25 for 10YDE-VE-------2 (version 2): counterparty time series differs. From
 * d_ANO.xml."
 */
export function answerSentence(a: AnswerChange): string {
  const who = /^the /i.test(a.who) ? a.who[0].toUpperCase() + a.who.slice(1) : `The TSO ${a.who}`;
  const version = a.version ? ` (version ${a.version})` : "";
  const reason = a.reason_text ? `: ${a.reason_text.trim().replace(/[.\s]+$/, "")}` : "";
  return `${who} ${
    STATUS_OF[a.state].verb
  } the schedule of ${a.day} for ${a.area}${version}${reason}. From ${a.source}.`;
}

/** One answer about one document. */
export interface AnswerChange {
  day: string;
  area: string;
  /** Message version the answer refers to (`null`: the latest, e.g. an ANO naming none). */
  version: number | null;
  state: Exclude<TsoState, "sent">;
  reason_code: string | null;
  reason_text: string | null;
  /** Who answered, for the event (the TSO's EIC). */
  who: string;
  /** Where the answer came from, for the event (a file name, `submission <id>`). */
  source: string;
  /** Extra event data (e.g. `{file}` or `{platform_id}`). */
  data: Record<string, unknown>;
}

/**
 * Applies `a` and appends its event when the status changed.
 * @param by the caller, or `orchestrator`
 * @returns as {@link applyAnswer}: `applied`, `same` (no event), `older` or `unknown` (nothing
 *   was sent)
 */
export async function recordAnswer(
  svc: { kv: Deno.Kv; events: EventLog; clock: Clock },
  a: AnswerChange,
  by: string,
): Promise<"applied" | "same" | "older" | "unknown"> {
  const change = {
    tso_status: a.state,
    reason_code: a.reason_code,
    reason_text: a.reason_text,
    at: new Date(svc.clock.now()).toISOString(),
  };
  // The version history keeps every version's answer, also one about an older version
  // (docs/intraday.md, "Version history"): it tells which schedule the TSO has.
  const version = a.version ?? (await tsoStatusOf(svc.kv, a.day, a.area))?.version;
  if (version) await recordVersionAnswer(svc.kv, a.day, a.area, version, change);
  const applied = await applyAnswer(svc.kv, a.day, a.area, a.version, change);
  // A newer answer for the day and area settles the files rejected before it.
  if (applied !== "unknown") await settleRejected(svc.kv, a.day, a.area, change.at);
  if (applied !== "applied") return applied;
  const s = STATUS_OF[a.state];
  await svc.events.append({
    kind: s.event,
    level: s.level,
    message: answerSentence(a),
    caller: by,
    delivery_day: a.day,
    data: { ...a.data, control_area: a.area, tso_status: a.state, reason_code: a.reason_code },
  });
  return applied;
}
