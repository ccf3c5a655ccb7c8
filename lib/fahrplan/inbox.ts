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
import { parseAnswer, type TsoAnswer } from "./answers.ts";
import { messageIdentification } from "./document.ts";
import { tsoOf } from "./parties.ts";
import { applyAnswer, type TsoState } from "./tso_status.ts";

/** What happened to one inbox file. */
export interface ImportResult {
  file: string;
  outcome: "imported" | "rejected" | "skipped";
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
  const dir = cfg.schedule_inbox_dir.replace(/\/+$/, "");
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && !e.name.startsWith(".")) names.push(e.name);
    }
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  const results: ImportResult[] = [];
  for (const name of names.sort()) results.push(await importOne(svc, cfg, dir, name, by));
  return results;
}

async function importOne(
  svc: InboxServices,
  cfg: EffectiveConfig,
  dir: string,
  name: string,
  by: string,
): Promise<ImportResult> {
  const claimed = `${dir}/.importing-${crypto.randomUUID()}-${name}`;
  try {
    await Deno.rename(`${dir}/${name}`, claimed);
  } catch {
    return { file: name, outcome: "skipped", reason: "another importer took it" };
  }
  let answer: TsoAnswer;
  let day: string;
  let area: string;
  try {
    answer = parseAnswer(await Deno.readTextFile(claimed));
    ({ day, area } = match(answer, cfg));
  } catch (err) {
    return await reject(svc, dir, name, claimed, (err as Error).message, by);
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
    return await reject(svc, dir, name, claimed, `no schedule of ${day} for ${area} was sent`, by);
  }
  await moveTo(dir, "processed", name, claimed);
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
  dir: string,
  name: string,
  claimed: string,
  reason: string,
  by: string,
): Promise<ImportResult> {
  await moveTo(dir, "rejected", name, claimed);
  await svc.events.append({
    kind: "schedule_answer_rejected",
    level: "warning",
    message: `The inbox file ${name} was not imported: ${reason}; moved to rejected/`,
    caller: by,
    data: { file: name, reason },
  });
  return { file: name, outcome: "rejected", reason };
}

/** Moves the claimed file to `<dir>/<folder>/<name>` (a later file of the same name wins). */
async function moveTo(dir: string, folder: string, name: string, claimed: string) {
  await Deno.mkdir(`${dir}/${folder}`, { recursive: true });
  await Deno.rename(claimed, `${dir}/${folder}/${name}`);
}
