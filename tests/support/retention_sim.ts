/**
 * A compressed delivery day for the retention tests (docs/retention.md): three market locations
 * in two control areas, their customer forecasts, the aggregate, one schedule version per area
 * marked sent, and two events — written through the domain functions, not full passes, so three
 * simulated years run in seconds. Plus readers of the archive that check it against its manifest.
 * @module
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { FakeClock } from "../../lib/clock.ts";
import { deliveryDay, quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { markSent } from "../../lib/fahrplan/tso_status.ts";
import { scheduleVersion } from "../../lib/fahrplan/versions.ts";
import { aggregateDay } from "../../lib/pipeline/aggregate.ts";
import { ingestForecasts } from "../../lib/pipeline/forecasts.ts";
import type { DayManifest } from "../../lib/retention/day_archive.ts";
import type { TestServer } from "./app.ts";
import type { TempDir } from "./temp.ts";
import { FILES_CHANNEL_ENV } from "./fahrplan.ts";
import { EXT, PROC } from "./keys.ts";
import { register } from "./pipeline.ts";
import { AREAS, maloId } from "./portfolio.ts";

/**
 * A temporary directory on tmpfs (`/dev/shm`) when the machine has one, else the system's: the
 * simulation commits some 20,000 times, and a disk's sync per commit would dominate its run time.
 */
export async function fastTempDir(prefix: string): Promise<TempDir> {
  const shm = await Deno.stat("/dev/shm").then((i) => i.isDirectory, () => false);
  const path = await Deno.makeTempDir(shm ? { prefix, dir: "/dev/shm" } : { prefix });
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    await Deno.remove(path, { recursive: true });
  };
  return { path, remove, [Symbol.asyncDispose]: remove };
}

/** The service environment: keys, parties, two areas, retention `days`, archive in `dir`. */
export function retentionEnv(dir: string, days: number): Record<string, string> {
  return {
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    ACTIVE_CONTROL_AREAS: `${AREAS.amprion},${AREAS.tennet}`,
    ...FILES_CHANNEL_ENV,
    RETENTION_DAYS: String(days),
    ARCHIVE_DIR: `${dir}/archive`,
    SCHEDULE_INBOX_DIR: `${dir}/inbox`,
    OUTBOX_DIR: `${dir}/outbox`,
    PIPELINE_WORKER: "false",
  };
}

/** The portfolio: three market locations (two Amprion, one TenneT). */
export const LOCATIONS = [maloId(1), maloId(2), maloId(3)];

/** Registers {@link LOCATIONS} over HTTP. */
export async function registerPortfolio(s: TestServer): Promise<void> {
  await register(s, LOCATIONS[0], { control_area: AREAS.amprion, direction: "consumption" });
  await register(s, LOCATIONS[1], { control_area: AREAS.amprion, direction: "generation" });
  await register(s, LOCATIONS[2], { control_area: AREAS.tennet, direction: "consumption" });
}

/**
 * One compressed delivery day: the clock goes to 4 h before its gate closure, then forecasts,
 * aggregate, one schedule version per area marked sent, two events.
 * @returns the number of events appended
 */
export async function simulateDay(s: TestServer, clock: FakeClock, day: string): Promise<number> {
  const { kv, events } = s.bridge.ctx;
  const now = deliveryDay(day).gateClosure.epochMilliseconds - 4 * 3_600_000;
  clock.set(now);
  const n = quarterHourCount(day);
  await ingestForecasts(
    kv,
    LOCATIONS.map((id, i) => ({
      malo_id: id,
      delivery_day: day,
      values: Array.from({ length: n }, (_, q) => 100 + i * 10 + q % 7),
    })),
    "acme",
    now,
  );
  const agg = await aggregateDay(kv, day, {
    by: "orchestrator",
    nowMs: now,
    activeAreas: [AREAS.amprion, AREAS.tennet],
    region: "DE",
  });
  for (const area of Object.keys(agg.areas)) {
    const v = await scheduleVersion(kv, day, area, agg.version, now);
    await markSent(kv, day, {
      control_area: area,
      receiver: "10XDE-RWENET---W",
      version: v.message_version,
      file: `${day}_TPS_${area}_${v.message_version}.xml`,
      at: new Date(now).toISOString(),
    });
  }
  await Promise.all([
    events.append({
      kind: "positions_aggregated",
      message: `${day} aggregated`,
      delivery_day: day,
    }),
    events.append({
      kind: "schedules_submitted",
      message: `${day} handed over`,
      delivery_day: day,
    }),
  ]);
  return 2;
}

/** Every KV entry of the store. */
export async function countEntries(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: [] })) n++;
  return n;
}

/**
 * Reads `YYYY/MM/DD/manifest.json` of `day` and checks every file it lists: present, its size
 * and SHA-256 as listed, and no file in the folder that it does not list.
 * @returns the manifest
 */
export async function checkedManifest(archiveDir: string, day: string): Promise<DayManifest> {
  const folder = `${archiveDir}/${day.replaceAll("-", "/")}`;
  const manifest = JSON.parse(await Deno.readTextFile(`${folder}/manifest.json`)) as DayManifest;
  assert.equal(manifest.delivery_day, day);
  for (const f of manifest.files) {
    const bytes = await Deno.readFile(`${folder}/${f.path}`);
    assert.equal(bytes.length, f.bytes, `${day}/${f.path}: size`);
    assert.equal(createHash("sha256").update(bytes).digest("hex"), f.sha256, `${day}/${f.path}`);
  }
  const listed = new Set([...manifest.files.map((f) => f.path), "manifest.json"]);
  for (const path of await filesUnder(folder)) {
    assert.ok(listed.has(path), `${day}/${path} is in the folder but not in the manifest`);
  }
  return manifest;
}

/** Relative paths of every file under `dir`. */
export async function filesUnder(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (e.isDirectory) out.push(...await filesUnder(`${dir}/${e.name}`, `${prefix}${e.name}/`));
    else out.push(`${prefix}${e.name}`);
  }
  return out.sort();
}

/** Ids of every event line in `events/*.jsonl` of the archive. */
export async function archivedEventIds(archiveDir: string): Promise<number[]> {
  const ids: number[] = [];
  for (const f of await filesUnder(`${archiveDir}/events`).catch(() => [])) {
    const text = await Deno.readTextFile(`${archiveDir}/events/${f}`);
    for (const line of text.split("\n").filter(Boolean)) ids.push(JSON.parse(line).id);
  }
  return ids;
}
