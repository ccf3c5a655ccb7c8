/**
 * Profile classes (docs/pipeline.md, "Forecasts"): the market locations summed per class —
 * control area, direction and standard load profile (`-` for a location without one) — as a count
 * and their annual energy in Wh/a (integers, so sums stay exact). A profile location contributes
 * `annual kWh × shape(profile, day, region)` to the open position (BDEW; see
 * `lib/domain/slp/profile.ts`), so a whole class contributes `shape × Σ annual kWh`: one
 * multiplication per class and quarter-hour instead of one per location.
 *
 * The table is stored as one KV record per control area (`KEYS.profileClassesOfArea`, owned here)
 * plus the master-data version it reflects; it changes in the same atomic as every master-data
 * change (`./market_locations.ts`), which checks and bumps the master-data version, so concurrent
 * changes from several replicas never lose an update. When the recorded version is not the current
 * one — a store from before the table, or a change written by an earlier version during a rolling
 * upgrade — the table is built again from the stored market locations (`profileClasses` in
 * `./market_locations.ts`).
 * @module
 */
import type { ProfileCode } from "../domain/slp/profile.ts";
import { KEYS } from "../store/keys.ts";

/** One class: how many market locations and their annual energy (Wh/a, integer). */
export interface ProfileClass {
  control_area: string;
  direction: "consumption" | "generation";
  /** The BDEW profile, or `null` for locations without one (they need customer forecasts). */
  profile: ProfileCode | null;
  count: number;
  /** Σ round(annual kWh × 1000) of the class's locations (0 without a profile). */
  wh: number;
}

/** The stored table: class key (`area|direction|profile`) → class. */
export interface ProfileClassTable {
  classes: Record<string, ProfileClass>;
}

/** What of a market location decides its class. */
export interface Classified {
  control_area: string;
  direction: "consumption" | "generation";
  standard_load_profile?: ProfileCode;
  annual_kwh?: number;
}

/** Key of the class of `loc` (`<area>|<direction>|<profile or ->`). */
export function classKey(loc: Classified): string {
  // The same few keys a million times over: built once each (at most MAX_KEYED_AREAS areas).
  let byDirection = keyMemo.get(loc.control_area);
  if (!byDirection) {
    if (keyMemo.size >= MAX_KEYED_AREAS) keyMemo.clear();
    keyMemo.set(loc.control_area, byDirection = new Map());
  }
  let byProfile = byDirection.get(loc.direction);
  if (!byProfile) byDirection.set(loc.direction, byProfile = new Map());
  const profile = loc.standard_load_profile ?? "-";
  let key = byProfile.get(profile);
  if (key === undefined) {
    byProfile.set(profile, key = `${loc.control_area}|${loc.direction}|${profile}`);
  }
  return key;
}

/** Class keys built so far: area → direction → profile (or `-`) → key. */
const keyMemo = new Map<string, Map<string, Map<string, string>>>();
const MAX_KEYED_AREAS = 1000;

/** Annual energy of a profile location in Wh/a (integer); 0 without a profile. */
export function annualWh(loc: Classified): number {
  return loc.standard_load_profile && loc.annual_kwh !== undefined
    ? Math.round(loc.annual_kwh * 1000)
    : 0;
}

/**
 * The table after `changes`, each a location as it was (`before`, `null`: new) and as it is
 * (`after`, `null`: removed): the old class loses the location, the new one gains it. Classes that
 * become empty are dropped. Returns a new table (the one passed in is not changed).
 */
export function applyChanges<T>(
  table: ProfileClassTable,
  changes: Iterable<T>,
  before: (change: T) => Classified | null,
  after: (change: T) => Classified | null,
): ProfileClassTable {
  const classes = { ...table.classes };
  // Each class touched is copied once (the table passed in stays as it was), then updated in place.
  const copied = new Set<string>();
  const add = (loc: Classified, sign: 1 | -1) => {
    const k = classKey(loc);
    let c = classes[k];
    if (!copied.has(k)) {
      c = c ? { ...c } : {
        control_area: loc.control_area,
        direction: loc.direction,
        profile: loc.standard_load_profile ?? null,
        count: 0,
        wh: 0,
      };
      classes[k] = c;
      copied.add(k);
    }
    c.count += sign;
    c.wh += sign * annualWh(loc);
  };
  for (const c of changes) {
    const b = before(c), a = after(c);
    if (b) add(b, -1);
    if (a) add(a, 1);
  }
  for (const k of copied) if (classes[k].count <= 0) delete classes[k];
  return { classes };
}

/**
 * The stored class table and the master-data version it reflects (`null`: none stored, a store
 * from before the table).
 */
export async function readClassTable(
  kv: Deno.Kv,
): Promise<{ table: ProfileClassTable; version: number | null }> {
  const [records, version] = await Promise.all([
    Array.fromAsync(kv.list<ProfileClassTable>(KEYS.profileClassesAll)),
    kv.get<number>(KEYS.profileClassesVersion),
  ]);
  const classes: Record<string, ProfileClass> = {};
  for (const r of records) Object.assign(classes, r.value.classes);
  return { table: { classes }, version: version.value };
}

/**
 * Adds to `op` the writes that turn the stored table `before` into `after` — one record per
 * control area, only the areas that changed (a record stays far below KV's 64 KiB value limit) —
 * and records `version` as the master-data version the table reflects. The caller checks the
 * master-data version in the same atomic, which serializes every change of the table.
 */
export function writeClassTable(
  op: Deno.AtomicOperation,
  before: ProfileClassTable,
  after: ProfileClassTable,
  version: number,
): Deno.AtomicOperation {
  const byArea = (t: ProfileClassTable) => {
    const m = new Map<string, Record<string, ProfileClass>>();
    for (const [k, c] of Object.entries(t.classes)) {
      const rec = m.get(c.control_area) ?? {};
      rec[k] = c;
      m.set(c.control_area, rec);
    }
    return m;
  };
  const [old, now] = [byArea(before), byArea(after)];
  for (const area of new Set([...old.keys(), ...now.keys()])) {
    const o = old.get(area), n = now.get(area);
    if (!n) op.delete(KEYS.profileClassesOfArea(area));
    else if (!o || !sameClasses(o, n)) {
      op.set(KEYS.profileClassesOfArea(area), { classes: n } satisfies ProfileClassTable);
    }
  }
  return op.set(KEYS.profileClassesVersion, version);
}

function sameClasses(a: Record<string, ProfileClass>, b: Record<string, ProfileClass>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => b[k] && a[k].count === b[k].count && a[k].wh === b[k].wh);
}

/** Every class of the table, in key order. */
export function classesOf(table: ProfileClassTable): ProfileClass[] {
  return Object.keys(table.classes).sort().map((k) => table.classes[k]);
}
