/**
 * Importing the TSO's answers (docs/fahrplan.md): every file in
 * `schedule_inbox_dir` is read as an ACK, CNF or ANO (ESS or CIM), matched to the document it
 * answers and applied to that day's and area's status; then it is moved to `processed/` inside
 * the inbox. A file that cannot be read or matched is moved to `rejected/` with a warning event
 * naming the file and the reason, and waits for the operator as an attention item
 * (`lib/fahrplan/rejected_answers.ts`). Files are never deleted, never imported twice (the move is the
 * record), and only one process imports a file: each is first renamed to a claimed name, which
 * succeeds for exactly one importer.
 *
 * Matching: an ACK or CNF names the answered document's identification and version — the
 * identification encodes the day, the sender and the receiver (`messageIdentification`); an ANO
 * (ESS or CIM) is matched by its day and the answering TSO's control area (a CIM report's
 * `domain.mRID` must be that area); its reason is that of the time series naming our balancing
 * group.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import { tsoOverrides } from "../config/fields.ts";
import type { EventLog } from "../store/events.ts";
import { sftpTargetOf } from "../adapters/sftp_target.ts";
import type { TextRedactor } from "../store/redactor.ts";
import type { TsoAnswer } from "./answers.ts";
import { answersModule } from "./xml_modules.ts";
import { type ClaimedFile, type InboxSource, localInbox, sftpInbox } from "./inbox_source.ts";
import { messageIdentification } from "./document.ts";
import { tsoOf } from "./parties.ts";
import { recordAnswer } from "./record_answer.ts";
import { reportFailure, reportRecovery } from "../store/repeated_failures.ts";
import { dayOfFileName, noteRejected } from "./rejected_answers.ts";
import type { ImportResult } from "../wire/schedule_responses.ts";

/** What happened to one inbox file (`lib/wire/schedule_responses.ts`). */
export type { ImportResult };

/** What the import needs of the app. */
export interface InboxServices {
  events: EventLog;
  clock: Clock;
  kv: Deno.Kv;
  /** Masks secrets in the sFTP server's error texts. */
  redactor?: TextRedactor;
}

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
  let results: ImportResult[];
  try {
    results = await importFrom(svc, cfg, localInbox(cfg.schedule_inbox_dir), by);
  } catch (err) {
    // E.g. the service may not write there (a sentence from lib/adapters/local_dir.ts).
    const reason = (err as Error).message;
    await svc.events.append({
      kind: "orchestration_error",
      level: "error",
      message: `The inbox ${cfg.schedule_inbox_dir} could not be read: ${reason}.`,
      caller: by,
      data: { inbox: cfg.schedule_inbox_dir },
    });
    results = [{ file: cfg.schedule_inbox_dir, outcome: "failed", reason }];
  }
  if (!cfg.sftp_inbox_dir) return results;
  let remote: InboxSource;
  const source = `sftp_inbox:${cfg.sftp_inbox_dir}`;
  try {
    remote = await sftpInbox(
      sftpTargetOf(cfg, cfg.sftp_inbox_dir, "sftp_inbox_dir is set", svc.redactor),
    );
  } catch (err) {
    const reason = (err as Error).message;
    await reportFailure(svc, { source, label: `The sFTP inbox ${cfg.sftp_inbox_dir}` }, {
      kind: "orchestration_error",
      level: "error",
      message: `The sFTP inbox ${cfg.sftp_inbox_dir} could not be read: ${reason}`,
      caller: by,
      data: { inbox: cfg.sftp_inbox_dir },
    });
    return [...results, { file: `sftp:${cfg.sftp_inbox_dir}`, outcome: "failed", reason }];
  }
  await reportRecovery(svc, source, null, by);
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
  const { parseAnswer } = await answersModule();
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
  const reason = answer.kind === "ano"
    ? anomalyReason(answer, cfg.balancing_group)
    : { ...answer, version: answer.referenced_version };
  const applied = await recordAnswer(svc, {
    day,
    area,
    version: reason.version,
    state,
    reason_code: reason.reason_code ?? null,
    reason_text: reason.reason_text ?? null,
    who: answer.sender,
    source: name,
    data: { file: name },
  }, by);
  if (applied === "unknown") {
    const why = `no schedule of ${day} for ${area} was sent`;
    return await reject(svc, source, claimed, why, by, { day, area });
  }
  await claimed.moveTo("processed");
  return {
    file: name,
    outcome: "imported",
    delivery_day: day,
    control_area: area,
    tso_status: state,
    ...(applied === "older" ? { reason: "answers an older version; the newer status stays" } : {}),
    ...(applied === "same" ? { reason: "repeats the status already recorded" } : {}),
  };
}

/**
 * Reason and version of an anomaly report for our status: from the time series naming our
 * balancing group (as in or out party, or as the CIM document's party) when any does, else from
 * every time series; the reason texts joined with `; `. The version is the `revisionNumber` of
 * our CIM schedule (`null`, the latest, when the report names none of ours, and for ESS).
 */
function anomalyReason(
  a: TsoAnswer,
  balancingGroup: string | null | undefined,
): { reason_code: string | null; reason_text: string | null; version: number | null } {
  const ours = a.anomalies.filter((x) =>
    !!balancingGroup &&
    (x.in_party === balancingGroup || x.out_party === balancingGroup ||
      x.party === balancingGroup)
  );
  const chosen = ours.length ? ours : a.anomalies;
  const texts = [...new Set(chosen.map((x) => x.reason_text ?? x.reason_code ?? ""))]
    .filter(Boolean);
  return {
    reason_code: chosen[0]?.reason_code ?? a.reason_code,
    reason_text: texts.join("; ") || a.reason_text,
    // Another party's revision says nothing of ours: without our time series, the latest.
    version: ours.find((x) => x.schedule_version != null)?.schedule_version ??
      (a.format === "ess" ? a.referenced_version : null),
  };
}

/** The day and control area an answer is about. @throws {Error} saying why none matches */
function match(a: TsoAnswer, cfg: EffectiveConfig): { day: string; area: string } {
  const overrides = tsoOverrides(cfg.tso_party_eics);
  const areas = cfg.active_control_areas;
  if (a.kind === "ano") {
    const area = areas.find((x) =>
      tsoOf(x, overrides) === a.sender && (!a.control_area || a.control_area === x)
    );
    if (!a.delivery_day) throw new Error("the anomaly report names no single delivery day");
    if (!area && a.control_area) {
      throw new Error(
        `${a.control_area} is not an active control area whose TSO is ${a.sender}`,
      );
    }
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
  about: { day?: string; area?: string } = {},
): Promise<ImportResult> {
  const name = claimed.name;
  await claimed.moveTo("rejected", reason);
  await noteRejected(svc.kv, {
    file: name,
    where: source.where,
    reason,
    at: new Date(svc.clock.now()).toISOString(),
    delivery_day: about.day ?? dayOfFileName(name),
    control_area: about.area ?? null,
  });
  await svc.events.append({
    kind: "schedule_answer_rejected",
    level: "warning",
    message: `The file ${name} in ${source.where} was not imported: ${
      reason.replace(/[.\s]+$/, "")
    }; moved to rejected/.`,
    caller: by,
    data: { file: name, reason },
  });
  return { file: name, outcome: "rejected", reason };
}
