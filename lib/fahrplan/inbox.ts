/**
 * Importing the TSO's answers (docs/pipeline.md, "Schedules to the TSO (Fahrplan)"): every file in
 * `schedule_inbox_dir` is read as an ACK, CNF or ANO (ESS or CIM), matched to the document it
 * answers and applied to that day's and area's status; then it is moved to `processed/` inside
 * the inbox. A file that cannot be read or matched is moved to `rejected/` with a warning event
 * naming the file and the reason. Files are never deleted, never imported twice (the move is the
 * record), and only one process imports a file: each is first renamed to a claimed name, which
 * succeeds for exactly one importer.
 *
 * Matching: an ACK or CNF names the answered document's identification and version — the
 * identification encodes the day, the sender and the receiver (`messageIdentification`); an ANO
 * is matched by its day and the answering TSO's control area.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import { tsoOverrides } from "../config/fields.ts";
import type { EventLog } from "../store/events.ts";
import type { EventKind } from "../wire/events.ts";
import { sftpTargetOf } from "../adapters/sftp_target.ts";
import type { TextRedactor } from "../store/redactor.ts";
import { parseAnswer, type TsoAnswer } from "./answers.ts";
import { type ClaimedFile, type InboxSource, localInbox, sftpInbox } from "./inbox_source.ts";
import { messageIdentification } from "./document.ts";
import { tsoOf } from "./parties.ts";
import { applyAnswer, type TsoState } from "./tso_status.ts";

/** What happened to one inbox file. */
export interface ImportResult {
  file: string;
  /** `failed`: the sFTP inbox could not be read (`file` is `sftp:<dir>`). */
  outcome: "imported" | "rejected" | "skipped" | "failed";
  delivery_day?: string;
  control_area?: string;
  tso_status?: TsoState;
  /** Why a file was rejected or skipped, in words. */
  reason?: string;
}

/** What the import needs of the app. */
export interface InboxServices {
  events: EventLog;
  clock: Clock;
  kv: Deno.Kv;
  /** Masks secrets in the sFTP server's error texts. */
  redactor?: TextRedactor;
}

const STATUS_OF: Record<string, { state: TsoState; event: EventKind; level: "info" | "warning" }> =
  {
    acknowledged: { state: "acknowledged", event: "schedule_acknowledged", level: "info" },
    rejected: { state: "rejected", event: "schedule_rejected", level: "warning" },
    confirmed: { state: "confirmed", event: "schedule_confirmed", level: "info" },
    anomaly: { state: "anomaly", event: "anomaly_reported", level: "warning" },
  };

/**
 * Imports every answer file in the inbox now.
 * @param by the caller, or `orchestrator`
 * @returns one result per file found (none when the inbox does not exist)
 */
export async function importInbox(
  svc: InboxServices,
  cfg: EffectiveConfig,
  by: string,
): Promise<ImportResult[]> {
  const results = await importFrom(svc, cfg, localInbox(cfg.schedule_inbox_dir), by);
  if (!cfg.sftp_inbox_dir) return results;
  let remote: InboxSource;
  try {
    remote = await sftpInbox(
      sftpTargetOf(cfg, cfg.sftp_inbox_dir, "sftp_inbox_dir is set", svc.redactor),
    );
  } catch (err) {
    const reason = (err as Error).message;
    await svc.events.append({
      kind: "orchestration_error",
      level: "error",
      message: `The sFTP inbox ${cfg.sftp_inbox_dir} could not be read: ${reason}`,
      caller: by,
      data: { inbox: cfg.sftp_inbox_dir },
    });
    return [...results, { file: `sftp:${cfg.sftp_inbox_dir}`, outcome: "failed", reason }];
  }
  try {
    return [...results, ...await importFrom(svc, cfg, remote, by)];
  } finally {
    await remote.close();
  }
}

async function importFrom(
  svc: InboxServices,
  cfg: EffectiveConfig,
  source: InboxSource,
  by: string,
): Promise<ImportResult[]> {
  const results: ImportResult[] = [];
  for (const name of await source.list()) results.push(await importOne(svc, cfg, source, name, by));
  return results;
}

async function importOne(
  svc: InboxServices,
  cfg: EffectiveConfig,
  source: InboxSource,
  name: string,
  by: string,
): Promise<ImportResult> {
  const claimed = await source.claim(name);
  if (!claimed) return { file: name, outcome: "skipped", reason: "another importer took it" };
  let answer: TsoAnswer;
  let day: string;
  let area: string;
  try {
    answer = parseAnswer(await claimed.text());
    ({ day, area } = match(answer, cfg));
  } catch (err) {
    return await reject(svc, source, claimed, (err as Error).message, by);
  }
  const state = answer.kind === "cnf"
    ? "confirmed"
    : answer.kind === "ano"
    ? "anomaly"
    : answer.accepted === false
    ? "rejected"
    : "acknowledged";
  const reasonText = answer.kind === "ano"
    ? answer.anomalies.map((a) => a.reason_text ?? a.reason_code ?? "").filter(Boolean).join(
      "; ",
    ) ||
      answer.reason_text
    : answer.reason_text;
  const applied = await applyAnswer(svc.kv, day, area, answer.referenced_version, {
    tso_status: STATUS_OF[state].state,
    reason_code: answer.reason_code ?? answer.anomalies[0]?.reason_code ?? null,
    reason_text: reasonText ?? null,
    at: new Date(svc.clock.now()).toISOString(),
  });
  if (applied === "unknown") {
    return await reject(svc, source, claimed, `no schedule of ${day} for ${area} was sent`, by);
  }
  await claimed.moveTo("processed");
  if (applied === "applied") {
    const s = STATUS_OF[state];
    await svc.events.append({
      kind: s.event,
      level: s.level,
      message: `${answer.sender} ${state} the schedule of ${day} for ${area}${
        answer.referenced_version ? ` (version ${answer.referenced_version})` : ""
      }${reasonText ? `: ${reasonText}` : ""} — ${name}`,
      caller: by,
      delivery_day: day,
      data: { file: name, control_area: area, tso_status: state, reason_code: answer.reason_code },
    });
  }
  return {
    file: name,
    outcome: "imported",
    delivery_day: day,
    control_area: area,
    tso_status: state,
    ...(applied === "older" ? { reason: "answers an older version; the newer status stays" } : {}),
  };
}

/** The day and control area an answer is about. @throws {Error} saying why none matches */
function match(a: TsoAnswer, cfg: EffectiveConfig): { day: string; area: string } {
  const overrides = tsoOverrides(cfg.tso_party_eics);
  const areas = cfg.active_control_areas;
  if (a.kind === "ano") {
    const area = areas.find((x) => tsoOf(x, overrides) === a.sender);
    if (!a.delivery_day) throw new Error("the anomaly report names no single delivery day");
    if (!area) throw new Error(`${a.sender} is not the TSO of an active control area`);
    return { day: a.delivery_day, area };
  }
  const ref = a.referenced_id ?? "";
  const m = /^(\d{4})(\d{2})(\d{2})_TPS_/.exec(ref);
  if (!m) throw new Error(`the answered document ${ref || "(none)"} is not one of ours`);
  const day = `${m[1]}-${m[2]}-${m[3]}`;
  const sender = cfg.sender_eic ?? "";
  const area = areas.find((x) => messageIdentification(day, sender, tsoOf(x, overrides)) === ref);
  if (!area) throw new Error(`the answered document ${ref} is not one of ours`);
  return { day, area };
}

async function reject(
  svc: InboxServices,
  source: InboxSource,
  claimed: ClaimedFile,
  reason: string,
  by: string,
): Promise<ImportResult> {
  const name = claimed.name;
  await claimed.moveTo("rejected");
  await svc.events.append({
    kind: "schedule_answer_rejected",
    level: "warning",
    message: `The file ${name} in ${source.where} was not imported: ${reason}; moved to rejected/`,
    caller: by,
    data: { file: name, reason },
  });
  return { file: name, outcome: "rejected", reason };
}
