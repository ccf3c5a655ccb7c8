/**
 * Retention's list of day-scoped key prefixes (docs/retention.md, "Rules") against `KEYS`: every
 * key builder taking a `day` argument must build a key under a prefix of `DAY_SCOPED_PREFIXES`
 * with the day as its second part — else the pruner would leave that record behind (or delete
 * it without archiving it). A new day-keyed key fails here until it is listed.
 * @module
 */
import assert from "node:assert/strict";
import { DAY_SCOPED_PREFIXES, KEYS, SELF_EXPIRING_DAY_KEYED } from "../../lib/store/keys.ts";
import { dayExpired, dayFolder, eventCutoffMs } from "../../lib/retention/plan.ts";

/** Parameter names of an arrow function or function, from its source text. */
function paramsOf(fn: (...a: never[]) => unknown): string[] {
  const src = fn.toString();
  const m = src.match(/^(?:function[^(]*)?\(([^)]*)\)/) ?? src.match(/^([A-Za-z_$][\w$]*)\s*=>/);
  if (!m) return [];
  return m[1].split(",").map((p) => p.trim().replace(/[:=?].*$/, "").trim()).filter(Boolean);
}

const SENTINEL_DAY = "1999-12-31";

/** Every KEYS entry with a `day` parameter, with the key (or selector key) it builds. */
function dayKeyed(): { name: string; key: Deno.KvKey }[] {
  const out: { name: string; key: Deno.KvKey }[] = [];
  for (const [name, v] of Object.entries(KEYS)) {
    if (typeof v !== "function") continue;
    const params = paramsOf(v as (...a: never[]) => unknown);
    if (!params.includes("day")) continue;
    const args = params.map((p) => p === "day" ? SENTINEL_DAY : 1);
    const built = (v as (...a: unknown[]) => unknown)(...args);
    const key = Array.isArray(built)
      ? built as Deno.KvKey
      : ((built as { prefix?: Deno.KvKey; start?: Deno.KvKey }).prefix ??
        (built as { start: Deno.KvKey }).start);
    out.push({ name, key });
  }
  return out;
}

Deno.test("every KEYS entry taking a day builds a key under DAY_SCOPED_PREFIXES, day second", () => {
  const found = dayKeyed();
  // The known day-keyed entries are found (the parser works).
  for (const n of ["day", "forecast", "aggregate", "submission", "scheduleVersion", "tsoStatus"]) {
    assert.ok(found.some((f) => f.name === n), `KEYS.${n} not recognised as day-keyed`);
  }
  for (const { name, key } of found) {
    if (SELF_EXPIRING_DAY_KEYED.includes(key[0] as string)) continue;
    assert.ok(
      DAY_SCOPED_PREFIXES.includes(key[0] as string),
      `KEYS.${name} takes a day but its prefix "${String(key[0])}" is not in ` +
        `DAY_SCOPED_PREFIXES (lib/store/keys.ts): retention would never archive or prune it`,
    );
    assert.equal(key[1], SENTINEL_DAY, `KEYS.${name}: the day must be the key's second part`);
  }
});

Deno.test("every DAY_SCOPED_PREFIXES entry is the prefix of some day-keyed KEYS entry", () => {
  const prefixes = new Set(dayKeyed().map((f) => f.key[0]));
  for (const p of DAY_SCOPED_PREFIXES) assert.ok(prefixes.has(p), `${p} is listed but unused`);
});

Deno.test("the parameter parser sees `day` in the forms KEYS uses", () => {
  assert.deepEqual(paramsOf((day: string) => [day]), ["day"]);
  assert.deepEqual(paramsOf((day: string, area: string) => [day, area]), ["day", "area"]);
  assert.deepEqual(
    paramsOf(function (x: number, day: string) {
      return [x, day];
    }),
    ["x", "day"],
  );
});

Deno.test("a day expires when its end (Berlin midnight) is more than N×24 h past", () => {
  // 2026-03-01 ends 2026-03-01T23:00Z (CET).
  const end = Date.parse("2026-03-01T23:00:00Z");
  assert.equal(dayExpired("2026-03-01", end + 30 * 86_400_000, 30), false);
  assert.equal(dayExpired("2026-03-01", end + 30 * 86_400_000 + 1, 30), true);
  assert.equal(dayExpired("2026-03-01", end + 10_000 * 86_400_000, 0), false, "0 keeps all");
  assert.equal(eventCutoffMs(100 * 86_400_000, 30), 70 * 86_400_000);
  assert.equal(dayFolder("2026-03-01"), "2026/03/01");
});
