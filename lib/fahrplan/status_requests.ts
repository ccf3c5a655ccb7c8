/**
 * Status requests when a TSO's answer is overdue (docs/fahrplan.md, "Status requests"), as BRPs do:
 * a schedule version still `sent` `tso_ack_overdue_minutes` after it left, or still `acknowledged`
 * `tso_cnf_overdue_minutes` after its ACK — counted from 18:00 Berlin the day before delivery for
 * a version acknowledged between the TSO deadline and then, which the TSOs only process from 18:00
 * (StromNZV § 5) — gets one status request (`./status_request_document.ts`) through the schedule's
 * channel, in the schedule's format. One request per version and overdue state, never one per
 * tick: the last request of a day and area is kept (`KEYS.statusRequest`). The TSO's answer to it
 * (a CNF, an ANO or a repeated ACK) is imported like any other answer.
 *
 * The market-platform channel asks the platform about every pending document on every tick
 * (`./platform_poll.ts`); there the status request is that poll, and none is written here.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import { DomainError } from "../domain/errors.ts";
import { deliverFile } from "../pipeline/publish.ts";
import { KEYS } from "../store/keys.ts";
import type { EventLog } from "../store/events.ts";
import type { TextRedactor } from "../store/redactor.ts";
import { tsoName } from "./tso_names.ts";
import { type TsoStatus, tsoStatuses, tsoStatusOf } from "./tso_status.ts";
import type { StatusRequestRecord } from "../wire/schedule_responses.ts";

/** Why a status request was sent. */
export type OverdueState = "ack" | "cnf" | "manual";

/** The last status request of a day and control area (`KEYS.statusRequest`; `lib/wire/schedule_responses.ts`). */
export type { StatusRequestRecord };

/** What sending a status request needs of the app. */
export interface StatusRequestServices {
  kv: Deno.Kv;
  events: EventLog;
  clock: Clock;
  redactor?: TextRedactor;
}

/** No schedule of that day and area was sent, or the channel has no status requests. */
export class StatusRequestRefused extends DomainError {
  constructor(message: string) {
    super("ERR_STATUS_REQUEST_REFUSED", "refused", message);
    this.name = "StatusRequestRefused";
  }
}

const MINUTE = 60_000;
/** A status of a day before yesterday is still followed when it changed within this (ms). */
const RECENT_MS = 86_400_000;

/**
 * Whether the TSO's answer about the stored status is overdue at `nowMs`, and which one.
 * @returns `ack` / `cnf` with the instant the wait started (epoch ms), or `null`
 */
export function overdueOf(
  day: string,
  status: TsoStatus,
  nowMs: number,
  cfg: Pick<
    EffectiveConfig,
    "tso_ack_overdue_minutes" | "tso_cnf_overdue_minutes" | "tso_deadline_local_time"
  >,
): { state: "ack" | "cnf"; since: number } | null {
  const at = Date.parse(status.at);
  if (status.tso_status === "sent") {
    return nowMs - at >= cfg.tso_ack_overdue_minutes * MINUTE ? { state: "ack", since: at } : null;
  }
  if (status.tso_status !== "acknowledged") return null;
  const since = processingFrom(day, at, cfg.tso_deadline_local_time);
  return nowMs - since >= cfg.tso_cnf_overdue_minutes * MINUTE ? { state: "cnf", since } : null;
}

/** 18:00 Berlin the day before delivery for an ACK between the TSO deadline and then, else `at`. */
function processingFrom(day: string, at: number, deadline: string): number {
  const before = deliveryDay(day).start.toZonedDateTimeISO("Europe/Berlin").toPlainDate()
    .subtract({ days: 1 });
  const local = (t: string) =>
    before.toZonedDateTime({ timeZone: "Europe/Berlin", plainTime: Temporal.PlainTime.from(t) })
      .epochMilliseconds;
  const processing = local("18:00");
  return at >= local(deadline) && at < processing ? processing : at;
}

/** Every status request of a day, by control area. */
export async function statusRequestsOf(
  kv: Deno.Kv,
  day: string,
): Promise<Record<string, StatusRequestRecord>> {
  const out: Record<string, StatusRequestRecord> = {};
  for await (const e of kv.list<StatusRequestRecord>(KEYS.statusRequestsOfDay(day))) {
    out[e.value.control_area] = e.value;
  }
  return out;
}

/**
 * Sends a status request for the day's and area's schedule now, records it and tells it as a
 * `status_requested` event.
 * @param state why: overdue `ack` / `cnf`, or `manual`
 * @throws {StatusRequestRefused} when no schedule of that day and area was sent, or the schedule
 *   channel is the market platform (its status is asked on every tick)
 * @throws {DocumentSchemaInvalid} when the request would not validate (never sent)
 * @throws {Error} when the publish target does not take the file (nothing recorded)
 */
export async function sendStatusRequest(
  svc: StatusRequestServices,
  cfg: EffectiveConfig,
  day: string,
  area: string,
  state: OverdueState,
  by: string,
): Promise<StatusRequestRecord> {
  const status = await tsoStatusOf(svc.kv, day, area);
  if (!status) {
    throw new StatusRequestRefused(
      `No schedule of ${day} for ${area} was sent, so there is no answer to ask the TSO for.`,
    );
  }
  if (cfg.schedule_channel !== "files") {
    throw new StatusRequestRefused(
      `The schedules go to the market platform (schedule_channel=${cfg.schedule_channel}), which is asked about every pending document on every orchestrator tick; no status request file is written.`,
    );
  }
  const format = cfg.schedule_format === "cim" ? "cim" : "ess";
  const { renderStatusRequest, statusRequestFileName } = await import(
    "./status_request_document.ts"
  );
  const now = svc.clock.now();
  const input = { day, sender: cfg.sender_eic ?? "", receiver: status.receiver, createdAtMs: now };
  const xml = renderStatusRequest(input, format);
  const file = statusRequestFileName(input);
  const location = await deliverFile(cfg, file, xml, svc.redactor);
  const record: StatusRequestRecord = {
    delivery_day: day,
    control_area: area,
    version: status.version,
    state,
    at: new Date(now).toISOString(),
    file,
    location,
    format,
    by,
  };
  await svc.kv.set(KEYS.statusRequest(day, area), record);
  const tso = tsoName(status.receiver) ?? status.receiver; // whom it went to (a configured TSO too)
  const why = state === "ack"
    ? `no acknowledgement ${cfg.tso_ack_overdue_minutes} minutes after sending`
    : state === "cnf"
    ? `no confirmation ${cfg.tso_cnf_overdue_minutes} minutes after the acknowledgement`
    : `asked by ${by}`;
  await svc.events.append({
    kind: "status_requested",
    level: state === "manual" ? "info" : "warning",
    message:
      `Status request ${file} sent to ${tso} for ${day} (version ${status.version}): ${why}.`,
    delivery_day: day,
    caller: by,
    data: { control_area: area, version: status.version, state, file, format },
  });
  return record;
}

/**
 * Sends a status request for every day's and area's schedule whose answer is overdue and was
 * not asked for yet in that version and state; days from yesterday on (Berlin), and an older day
 * of the last week whose status changed within the last day (a post-delivery correction,
 * docs/post-delivery.md).
 * @returns the requests sent now
 */
export async function requestOverdueStatuses(
  svc: StatusRequestServices,
  cfg: EffectiveConfig,
  by: string,
): Promise<StatusRequestRecord[]> {
  if (cfg.schedule_channel !== "files" || !cfg.sender_eic) return [];
  const now = svc.clock.now();
  const today = Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO("Europe/Berlin")
    .toPlainDate();
  const sent: StatusRequestRecord[] = [];
  const days = new Set<string>();
  const yesterday = today.subtract({ days: 1 }).toString();
  const from = KEYS.tsoStatusesFrom(today.subtract({ days: 7 }).toString());
  for await (const e of svc.kv.list(from)) {
    days.add(String(e.key[1]));
  }
  for (const day of days) {
    const asked = await statusRequestsOf(svc.kv, day);
    for (const status of await tsoStatuses(svc.kv, day)) {
      if (day < yesterday && now - Date.parse(status.at) > RECENT_MS) continue;
      const overdue = overdueOf(day, status, now, cfg);
      if (!overdue) continue;
      const last = asked[status.control_area];
      if (last && last.version === status.version) {
        // Asked already in this state, or by the operator since the wait began.
        if (last.state === overdue.state) continue;
        if (last.state === "manual" && Date.parse(last.at) >= overdue.since) continue;
      }
      sent.push(await sendStatusRequest(svc, cfg, day, status.control_area, overdue.state, by));
    }
  }
  return sent;
}
