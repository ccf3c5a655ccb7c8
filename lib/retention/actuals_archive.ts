/**
 * The metered actuals of a day in its archive (docs/retention.md, "Archive of a day";
 * docs/settlement.md): `actuals-0001.csv`, … with {@link ACTUALS_PER_PART} market locations each,
 * `malo_id,updated_at,source,<quarter-hour starts UTC…>` (kWh per quarter-hour, empty where not
 * metered), one part per archiving step so that a day of 100,000 metered locations never makes one
 * long tick. Balancing-group sums and prices are few records a day: they go to `records.jsonl`.
 * @module
 */
import { deliveryDay } from "../domain/delivery_day.ts";
import { type PackedActuals, unpacked } from "../settlement/actuals_store.ts";
import { KEYS } from "../store/keys.ts";
import type { ArchiveTarget } from "./target.ts";
import { toCsv } from "./text.ts";

/** Market locations per CSV part. */
export const ACTUALS_PER_PART = 1000;

/** What of a day's pruning state (`DayPruning` of `./day_archive.ts`) this step reads and writes. */
interface ActualsStage<F> {
  day: string;
  stage: string;
  counts: Record<string, number>;
  files: F[];
  actuals_after?: string;
  actuals_parts?: number;
}

/**
 * The next part of the day's actuals, or the move to the manifest when none is left.
 * @param put writes one file of the day and returns its manifest line (`./day_archive.ts`)
 */
export async function actualsPart<F, S extends ActualsStage<F>>(
  kv: Deno.Kv,
  target: ArchiveTarget,
  s: S,
  put: (
    target: ArchiveTarget,
    day: string,
    path: string,
    text: string,
    rows?: number,
  ) => Promise<F>,
): Promise<S> {
  const sel = KEYS.actualsOfDay(s.day) as { prefix: Deno.KvKey };
  const selector: Deno.KvListSelector = s.actuals_after === undefined
    ? sel
    : { prefix: sel.prefix, start: [...sel.prefix, s.actuals_after + "\0"] };
  const d = deliveryDay(s.day);
  const qh = d.quarterHours.map((q) => q.toString());
  const rows: unknown[][] = [];
  let last: string | undefined;
  for await (
    const e of kv.list<PackedActuals>(selector, { limit: ACTUALS_PER_PART, batchSize: 200 })
  ) {
    last = e.key[2] as string;
    const rec = unpacked(e.key, e.value);
    rows.push([last, rec.updated_at, rec.source, ...rec.kwh.map((v) => v ?? "")]);
  }
  const counts = { ...s.counts, actuals: (s.counts.actuals ?? 0) + rows.length };
  if (rows.length === 0) return { ...s, counts, stage: "manifest" };
  const parts = (s.actuals_parts ?? 0) + 1;
  const name = `actuals-${String(parts).padStart(4, "0")}.csv`;
  const csv = toCsv([["malo_id", "updated_at", "source", ...qh], ...rows]);
  const file = await put(target, s.day, name, csv, rows.length);
  return {
    ...s,
    counts,
    actuals_parts: parts,
    actuals_after: last,
    files: [...s.files, file],
    stage: rows.length < ACTUALS_PER_PART ? "manifest" : "actuals",
  };
}
