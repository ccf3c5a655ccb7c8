/**
 * The archive of one delivery day (docs/retention.md, "Archive of a day"), written in resumable
 * steps so that one tick stays short: `records` (day state, aggregate CSV, schedule XML, TSO
 * status, every other record of the day as JSON lines), then the customer forecasts as CSV in
 * parts of {@link FORECASTS_PER_PART}, then `manifest.json` with counts and SHA-256 checksums,
 * and every file read back and checked against it. Each step returns the next state; the caller
 * stores it (`./pruner.ts`).
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import { scheduleFileName } from "../fahrplan/document.ts";
import { renderModule } from "../fahrplan/xml_modules.ts";

/** `renderSchedule` of lib/fahrplan/render.ts, loaded at first use. */
type RenderSchedule = Awaited<ReturnType<typeof renderModule>>["renderSchedule"];
import type { ScheduleVersion } from "../fahrplan/versions.ts";
import type { TsoStatus } from "../fahrplan/tso_status.ts";
import type { Aggregate } from "../pipeline/aggregate.ts";
import type { DayState } from "../pipeline/day_state.ts";
import { openPositionCsv, openPositionFileName } from "../pipeline/open_position_csv.ts";
import { scheduleFor } from "../pipeline/schedule_documents.ts";
import type { ScheduleVersionRecord } from "../fahrplan/history.ts";
import { DAY_SCOPED_PREFIXES, dayScopedRange, KEYS } from "../store/keys.ts";
import { dayFolder } from "./plan.ts";
import { type ArchiveTarget, sha256Hex } from "./target.ts";
import { jsonLine, toCsv } from "./text.ts";
import { actualsPart } from "./actuals_archive.ts";

/** Customer forecasts per CSV part (one step of a tick). */
export const FORECASTS_PER_PART = 1000;

/** One archived file, as the manifest lists it. */
export interface ArchivedFile {
  /** Relative to the day's folder, e.g. `forecasts-0001.csv`. */
  path: string;
  bytes: number;
  /** Lowercase hex SHA-256 of the file's bytes. */
  sha256: string;
  /** Data rows (CSV) or lines (JSONL), where it applies. */
  rows?: number;
}

/** The unfinished pruning of one day, kept in KV (`KEYS.retentionDay`). */
export interface DayPruning {
  day: string;
  /** `archiving` until the manifest is read back; then `pruning` until the last key is gone. */
  phase: "archiving" | "pruning";
  /** Next archiving step. */
  stage: "records" | "forecasts" | "actuals" | "manifest" | "verify";
  /** Last market location archived (actuals parts, `./actuals_archive.ts`), and parts written. */
  actuals_after?: string;
  actuals_parts?: number;
  /** The manifest as written (stage `verify`). */
  manifest?: ArchivedFile;
  /** Files read back and found equal so far (stage `verify`), in the order of `files`. */
  verified?: number;
  /** Last MaLo-ID archived (forecast parts), when a part was written. */
  after?: string;
  /** Forecast parts written. */
  parts: number;
  files: ArchivedFile[];
  /** KV records archived per day-scoped prefix. */
  counts: Record<string, number>;
  /** What the archive could not hold as it was, in words. */
  notes: string[];
  started_at: string;
}

/** `manifest.json` of a day's folder: what the folder holds and what left the store. */
export interface DayManifest {
  delivery_day: string;
  archived_at: string;
  /** KV records per day-scoped prefix; they all left the store after this file was written. */
  counts: Record<string, number>;
  files: ArchivedFile[];
  notes: string[];
}

/** A fresh pruning state of `day`. */
export function startPruning(day: string, nowMs: number): DayPruning {
  return {
    day,
    phase: "archiving",
    stage: "records",
    parts: 0,
    files: [],
    counts: {},
    notes: [],
    started_at: new Date(nowMs).toISOString(),
  };
}

const enc = new TextEncoder();

/** Writes one file of the day and returns its manifest line (read back in the `verify` stage). */
async function put(
  target: ArchiveTarget,
  day: string,
  path: string,
  text: string,
  rows?: number,
): Promise<ArchivedFile> {
  const bytes = enc.encode(text);
  const sha256 = sha256Hex(bytes);
  await target.write(`${dayFolder(day)}/${path}`, bytes);
  return { path, bytes: bytes.length, sha256, ...(rows !== undefined ? { rows } : {}) };
}

/**
 * Runs the next archiving step of `s`.
 * @param cfg the configuration whose parties render the schedule XML
 * @returns the new state (`phase: "pruning"` once the manifest is written and every file read back)
 * @throws {Error} when the target refuses a file, or a read-back differs from what was written
 *   (the state is unchanged: the step runs again next tick)
 */
export async function archiveStep(
  kv: Deno.Kv,
  target: ArchiveTarget,
  s: DayPruning,
  cfg: EffectiveConfig,
  nowMs: number,
): Promise<DayPruning> {
  if (s.stage === "records") return { ...await records(kv, target, s, cfg), stage: "forecasts" };
  if (s.stage === "forecasts") return await forecastPart(kv, target, s);
  if (s.stage === "actuals") return await actualsPart(kv, target, s, put);
  if (s.stage === "verify") return await verifyPart(target, s);
  const manifest: DayManifest = {
    delivery_day: s.day,
    archived_at: new Date(nowMs).toISOString(),
    counts: s.counts,
    files: s.files,
    notes: s.notes,
  };
  const file = await put(target, s.day, "manifest.json", JSON.stringify(manifest, null, 2) + "\n");
  return { ...s, stage: "verify", manifest: file, verified: 0 };
}

/** Bytes read back in one verification step at most (at least one file is read). */
const VERIFY_BYTES_PER_STEP = 4_000_000;

/**
 * Reads back the next files (up to {@link VERIFY_BYTES_PER_STEP}), the manifest last; when all
 * are equal to what was written, the day moves to `pruning`.
 */
async function verifyPart(target: ArchiveTarget, s: DayPruning): Promise<DayPruning> {
  const all = [...s.files, s.manifest!];
  const from = s.verified ?? 0;
  let i = from;
  let bytes = 0;
  while (i < all.length && (i === from || bytes + all[i].bytes <= VERIFY_BYTES_PER_STEP)) {
    bytes += all[i].bytes;
    i++;
  }
  await verifyFolder(target, s.day, all.slice(from, i));
  return i < all.length ? { ...s, verified: i } : { ...s, verified: i, phase: "pruning" };
}

/**
 * Reads every file back (all at once: on sFTP the requests share the connection) and compares
 * size and SHA-256 with `files`.
 * @throws {Error} naming the first file missing or different
 */
export async function verifyFolder(
  target: ArchiveTarget,
  day: string,
  files: ArchivedFile[],
): Promise<void> {
  const read = await Promise.all(files.map((f) => target.read(`${dayFolder(day)}/${f.path}`)));
  for (const [i, f] of files.entries()) {
    const back = read[i];
    if (!back) throw new Error(`archive of ${day}: ${f.path} is missing after writing it`);
    if (back.length !== f.bytes || sha256Hex(back) !== f.sha256) {
      throw new Error(`archive of ${day}: ${f.path} read back differs from what was written`);
    }
  }
}

/** Every record of the day except the forecasts, plus the readable renderings. */
async function records(
  kv: Deno.Kv,
  target: ArchiveTarget,
  s: DayPruning,
  cfg: EffectiveConfig,
): Promise<DayPruning> {
  const counts: Record<string, number> = {};
  const lines: string[] = [];
  const byPrefix = new Map<string, Deno.KvEntry<unknown>[]>();
  // The prefixes' lists at once (one round trip each), then in their order.
  const prefixes = DAY_SCOPED_PREFIXES.filter((p) => p !== "forecasts" && p !== "actuals");
  const lists = await Promise.all(prefixes.map(async (prefix) => {
    const entries: Deno.KvEntry<unknown>[] = [];
    for await (const e of kv.list(dayScopedRange(prefix, s.day))) entries.push(e);
    return entries;
  }));
  for (const [i, prefix] of prefixes.entries()) {
    const entries = lists[i];
    counts[prefix] = entries.length;
    byPrefix.set(prefix, entries);
    for (const e of entries) lines.push(jsonLine({ key: e.key, value: e.value }));
  }
  // The files are written at once (on sFTP the uploads share the connection), listed in order.
  // Loaded before the first write starts, so no write's failure waits unobserved.
  const { renderSchedule } = await renderModule();
  const files: Promise<ArchivedFile>[] = [];
  const notes = [...s.notes];
  const state = byPrefix.get("days")?.[0]?.value as DayState | undefined;
  if (state) {
    files.push(put(target, s.day, "day.json", JSON.stringify(state, null, 2) + "\n"));
  }
  const agg = byPrefix.get("aggregates")?.[0]?.value as Aggregate | undefined;
  if (agg) {
    const csv = openPositionCsv(agg);
    files.push(put(target, s.day, openPositionFileName(agg), csv, agg.quarter_hours.length));
    for (const doc of schedules(s.day, agg, state, byPrefix, cfg, notes, renderSchedule)) {
      files.push(put(target, s.day, doc.path, doc.text));
    }
  }
  const statuses = (byPrefix.get("tso_status") ?? []).map((e) => e.value as TsoStatus);
  if (statuses.length) {
    files.push(put(target, s.day, "tso_status.json", JSON.stringify(statuses, null, 2) + "\n"));
    notes.push(
      "The TSO's answer files (ACK, CNF, ANO) are not kept in the store: tso_status.json holds what they said; the files themselves stay in the inbox's processed/ folder.",
    );
  }
  const text = lines.join("");
  files.push(put(target, s.day, "records.jsonl", text, lines.length));
  return { ...s, counts, files: [...s.files, ...await Promise.all(files)], notes };
}

/**
 * The schedule document of each control area whose stored version carries the stored aggregate,
 * rendered again from it (the store keeps the version and the aggregate, not the XML sent).
 * @returns path (`schedules/<BDEW file name>`) and XML text of each; what could not be rendered
 *   is said in `notes`
 */
function schedules(
  day: string,
  agg: Aggregate,
  state: DayState | undefined,
  byPrefix: Map<string, Deno.KvEntry<unknown>[]>,
  cfg: EffectiveConfig,
  notes: string[],
  renderSchedule: RenderSchedule,
): { path: string; text: string }[] {
  const detail = state?.steps?.submitted?.detail as { format?: string } | undefined;
  const format = detail?.format === "cim" || detail?.format === "ess"
    ? detail.format
    : cfg.schedule_format === "cim" || cfg.schedule_format === "ess"
    ? cfg.schedule_format
    : null;
  const out: { path: string; text: string }[] = [];
  // Every version that left, from its version history (docs/intraday.md, "Version history"):
  // the quantities as sent, rendered with the parties configured at archiving time.
  const sentAreas = new Set<string>();
  for (const e of byPrefix.get("schedule_history") ?? []) {
    const h = e.value as ScheduleVersionRecord;
    const area = e.key[2] as string;
    sentAreas.add(area);
    if (!format) continue;
    try {
      const doc = scheduleFor(
        cfg,
        { delivery_day: day, version: h.aggregate_version } as Aggregate,
        area,
        h.quantities,
        h.version,
        Date.parse(h.sent_at),
      );
      out.push({ path: `schedules/${scheduleFileName(doc)}`, text: renderSchedule(doc, format) });
    } catch (err) {
      notes.push(`${area} v${h.version}: could not be rendered again: ${(err as Error).message}`);
    }
  }
  for (const e of byPrefix.get("schedule_versions") ?? []) {
    const area = e.key[2] as string;
    if (sentAreas.has(area)) continue; // every version is archived from its history above
    const v = e.value as ScheduleVersion;
    if (!format) {
      notes.push(`${area}: the schedule went out as JSON; its receipt is in records.jsonl.`);
      continue;
    }
    if (v.aggregate_version !== agg.version || !agg.areas[area]) {
      notes.push(
        `${area}: version ${v.message_version} carried aggregate ${v.aggregate_version}, which the store no longer holds; its version record is in records.jsonl.`,
      );
      continue;
    }
    try {
      const doc = scheduleFor(
        cfg,
        agg,
        area,
        agg.areas[area],
        v.message_version,
        Date.parse(v.created_at),
      );
      out.push({ path: `schedules/${scheduleFileName(doc)}`, text: renderSchedule(doc, format) });
    } catch (err) {
      notes.push(`${area}: the schedule could not be rendered again: ${(err as Error).message}`);
    }
  }
  if (out.length) {
    notes.push(
      "schedules/: the XML is rendered again with the parties configured at archiving time (the store does not keep the XML as sent): every version from its version history with the quantities as sent; for a day without history, the latest version of each control area from the stored aggregate.",
    );
  }
  return out;
}

/** The next part of the day's customer forecasts, or the move to the manifest when none is left. */
async function forecastPart(
  kv: Deno.Kv,
  target: ArchiveTarget,
  s: DayPruning,
): Promise<DayPruning> {
  const prefix = KEYS.forecastPrefixOfDay(s.day);
  const selector: Deno.KvListSelector = s.after === undefined
    ? { prefix }
    : { prefix, start: [...prefix, s.after + "\0"] };
  // Quarter-hour starts as `Temporal.Instant#toString` writes them (`…T23:00:00Z`), from the
  // day's start: they are 15 minutes apart in UTC (one Temporal call, not one per column).
  const d = deliveryDay(s.day);
  const start = d.start.epochMilliseconds;
  const qh = d.quarterHours.map((_, i) =>
    new Date(start + i * 900_000).toISOString().slice(0, 19) + "Z"
  );
  const rows: unknown[][] = [];
  let last: string | undefined;
  for await (
    const e of kv.list<Record<string, unknown>>(selector, {
      limit: FORECASTS_PER_PART,
      batchSize: 200,
    })
  ) {
    const f = e.value;
    last = e.key[2] as string;
    const values = "values" in f ? Array.from(f.values as ArrayLike<number>) : [];
    rows.push([last, f.source, f.received_at, f.by, ...values]);
  }
  const counts = { ...s.counts, forecasts: (s.counts.forecasts ?? 0) + rows.length };
  if (rows.length === 0) return { ...s, counts, stage: "actuals" };
  const parts = s.parts + 1;
  const name = `forecasts-${String(parts).padStart(4, "0")}.csv`;
  const csv = toCsv([["malo_id", "source", "received_at", "by", ...qh], ...rows]);
  const file = await put(target, s.day, name, csv, rows.length);
  return {
    ...s,
    counts,
    parts,
    after: last,
    files: [...s.files, file],
    stage: rows.length < FORECASTS_PER_PART ? "actuals" : "forecasts",
  };
}
