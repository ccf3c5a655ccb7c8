/**
 * The message version of each schedule document (docs/fahrplan.md): per delivery day and control area it starts at 1 and grows by one with every new
 * document — a newer aggregate gives the next version — never reused and never going back. Kept in
 * KV (`KEYS.scheduleVersion`), so it survives restarts and every replica counts on.
 * @module
 */
import { ScheduleInvalid } from "../domain/errors.ts";
import { retryKv } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";

/**
 * Highest message version: the BDEW file name carries it in 3 digits (docs/fahrplan.md), so a
 * day and area can have at most 999 versions.
 */
export const MAX_MESSAGE_VERSION = 999;

/** The refusal of a version past {@link MAX_MESSAGE_VERSION}, in words. */
function tooManyVersions(day: string, controlArea: string): ScheduleInvalid {
  return new ScheduleInvalid([
    `the schedule of ${day} for ${controlArea} already has ${MAX_MESSAGE_VERSION} versions, the most the format allows (3 digits in the file name); no further version can be sent for this day and control area`,
  ]);
}

/** The stored version of one day's and area's schedule. */
export interface ScheduleVersion {
  /** Message version (ESS `MessageVersion`, CIM `revisionNumber`), from 1. */
  message_version: number;
  /** Aggregate version the document with this message version carries. */
  aggregate_version: number;
  /** ISO-8601 UTC instant the version was given. */
  created_at: string;
}

/**
 * The message version for the document of `aggregateVersion`: the stored one when it already
 * carries that aggregate, else the next one (stored atomically, so two replicas never hand out the
 * same number for different documents). An older aggregate than the stored one keeps the stored
 * version: a version never goes back.
 * @param nowMs instant of the new version, ms since the epoch
 * @param above the version must be above this one (a version the TSO rejected is never sent
 *   again: the same aggregate then gets the next version)
 * @throws {ScheduleInvalid} when the next version would exceed {@link MAX_MESSAGE_VERSION}
 *   (nothing stored: the refusal says so in words)
 * @throws {KvContentionError} when KV stays contended
 */
export async function scheduleVersion(
  kv: Deno.Kv,
  day: string,
  controlArea: string,
  aggregateVersion: number,
  nowMs: number,
  above = 0,
): Promise<ScheduleVersion> {
  return await storeVersion(
    kv,
    day,
    controlArea,
    (cur) => versionFor(cur, aggregateVersion, nowMs, above),
  );
}

/**
 * The next message version of a day and area whatever the aggregate: a post-delivery correction
 * (docs/post-delivery.md) carries no new aggregate but is a new version all the same. Stored
 * atomically with the stored aggregate version kept, so two callers never get the same number.
 * @param nowMs instant of the new version, ms since the epoch
 * @param above the version must be above this one (the newest in the version history)
 * @throws {ScheduleInvalid} when it would exceed {@link MAX_MESSAGE_VERSION} (nothing stored)
 * @throws {KvContentionError} when KV stays contended
 */
export async function nextMessageVersion(
  kv: Deno.Kv,
  day: string,
  controlArea: string,
  nowMs: number,
  above = 0,
): Promise<ScheduleVersion> {
  return await storeVersion(kv, day, controlArea, (cur) => ({
    message_version: Math.max(cur?.message_version ?? 0, above) + 1,
    aggregate_version: cur?.aggregate_version ?? 0,
    created_at: new Date(nowMs).toISOString(),
  }));
}

/**
 * Stores the version `make` gives from the stored one (unless it returns the stored one itself),
 * with a check of the stored one, so two callers never store over each other.
 * @throws {ScheduleInvalid} past {@link MAX_MESSAGE_VERSION} (nothing stored)
 */
async function storeVersion(
  kv: Deno.Kv,
  day: string,
  controlArea: string,
  make: (cur: ScheduleVersion | null) => ScheduleVersion,
): Promise<ScheduleVersion> {
  const key = KEYS.scheduleVersion(day, controlArea);
  return await retryKv(`schedule version of ${day} ${controlArea}`, async () => {
    const cur = await kv.get<ScheduleVersion>(key);
    const next = make(cur.value);
    if (next === cur.value) return next;
    if (next.message_version > MAX_MESSAGE_VERSION) throw tooManyVersions(day, controlArea);
    const r = await kv.atomic().check(cur).set(key, next).commit();
    return r.ok ? next : undefined;
  });
}

/**
 * The message version a document of `aggregateVersion` has or would get, without storing
 * anything (for reading a document; sending it stores the version with {@link scheduleVersion}).
 */
export async function peekScheduleVersion(
  kv: Deno.Kv,
  day: string,
  controlArea: string,
  aggregateVersion: number,
  nowMs: number,
): Promise<ScheduleVersion> {
  const cur = (await kv.get<ScheduleVersion>(KEYS.scheduleVersion(day, controlArea))).value;
  return versionFor(cur, aggregateVersion, nowMs);
}

/** The stored version when it covers `aggregateVersion`, else the next one (not stored). */
function versionFor(
  cur: ScheduleVersion | null,
  aggregateVersion: number,
  nowMs: number,
  above = 0,
): ScheduleVersion {
  if (cur && cur.aggregate_version >= aggregateVersion && cur.message_version > above) return cur;
  return {
    message_version: (cur?.message_version ?? 0) + 1,
    aggregate_version: aggregateVersion,
    created_at: new Date(nowMs).toISOString(),
  };
}
