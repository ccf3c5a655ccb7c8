/**
 * How stored actuals change when values of another kind or version arrive (docs/settlement.md,
 * "Actuals"; lib/settlement/actuals_merge.ts), on a KV file: a monthly settlement series
 * (MSCONS 13003 `BGM+BK`) of a newer version replaces the record, an older one and a daily sum
 * after it change nothing and say so; a missing value never erases a known one; the same message
 * twice is unchanged, kinds included.
 */
import assert from "node:assert/strict";
import { balancingGroupSumsOfDay, storeActuals } from "../../lib/settlement/actuals_store.ts";
import { parseMscons } from "../../lib/settlement/mscons.ts";
import { QUALITY } from "../../lib/settlement/mscons_codes.ts";
import { withKv } from "../support/temp.ts";

const SZ = Deno.readTextFileSync(
  new URL("../fixtures/mscons/ahb/MSCONS_13003_Summenzeitreihe_synthetic.txt", import.meta.url),
);
const DAY = "2027-03-28";

/** The 13003 sum as a monthly series of version `v` (format 304), every quarter-hour `kwh`. */
const monthly = (v: string, kwh: string) =>
  SZ.replace("BGM+Z39+", "BGM+BK+")
    .replace(
      "LOC+172+DE0123456000000000000000000000001'",
      `LOC+172+DE0123456000000000000000000000001'DTM+492:202703:610'DTM+293:${v}?+00:304'`,
    )
    .replaceAll(/QTY\+(220|Z30):[0-9.]+'/g, `QTY+79:${kwh}'`);

const store = (kv: Deno.Kv, text: string, at: string) =>
  storeActuals(kv, parseMscons(text).series, at, Date.parse("2027-04-20T08:00:00Z"));

Deno.test("sums: daily, then monthly v1, v2; an older version and a daily sum change nothing", async () => {
  await withKv(async (kv) => {
    const sum = async () => (await balancingGroupSumsOfDay(kv, DAY))[0];
    let out = await store(kv, SZ, "daily");
    assert.deepEqual([out.added, out.missing], [91, 1]);
    assert.equal((await sum()).kwh[50], null);
    assert.equal((await sum()).quality?.[50], QUALITY.MISSING);
    // The same daily sum again: unchanged, the missing value still missing.
    out = await store(kv, SZ, "daily again");
    assert.deepEqual([out.added, out.replaced, out.unchanged, out.missing], [0, 0, 91, 1]);
    assert.equal((await sum()).source, "daily");

    out = await store(kv, monthly("20270415120000", "100.000"), "v1");
    assert.deepEqual([out.added, out.replaced], [1, 91]);
    let s = await sum();
    assert.ok(s.kwh.every((v) => v === 100));
    assert.equal(s.version, "2027-04-15T12:00:00.000Z");
    assert.equal(s.quality, undefined, "a new version replaces the record, kinds included");

    out = await store(kv, monthly("20270418120000", "200.000"), "v2");
    assert.equal(out.replaced, 92);
    assert.ok((await sum()).kwh.every((v) => v === 200));

    out = await store(kv, monthly("20270415120000", "100.000"), "v1 late");
    assert.deepEqual(out.older_versions, [{
      location: "DE0123456000000000000000000000001",
      day: DAY,
      version: "2027-04-15T12:00:00.000Z",
      stored: "2027-04-18T12:00:00.000Z",
    }]);
    out = await store(kv, SZ, "daily late");
    assert.equal(out.older_versions[0].version, null);
    s = await sum();
    assert.ok(s.kwh.every((v) => v === 200));
    assert.equal(s.source, "v2");
  });
});

Deno.test("a value reported missing keeps a known one; a provisional value replaced by a true one", async () => {
  await withKv(async (kv) => {
    await store(kv, SZ.replace("QTY+Z30:0.000'", "QTY+Z18:4340.000'"), "with provisional");
    let s = (await balancingGroupSumsOfDay(kv, DAY))[0];
    assert.deepEqual([s.kwh[50], s.quality?.[50]], [4340, QUALITY.PROVISIONAL]);
    let out = await store(kv, SZ, "missing after");
    assert.deepEqual([out.missing, out.replaced], [0, 0]);
    s = (await balancingGroupSumsOfDay(kv, DAY))[0];
    assert.deepEqual([s.kwh[50], s.quality?.[50]], [4340, QUALITY.PROVISIONAL]);
    out = await store(kv, SZ.replace("QTY+Z30:0.000'", "QTY+220:4340.000'"), "true");
    assert.deepEqual([out.replaced, out.unchanged], [1, 91]);
    s = (await balancingGroupSumsOfDay(kv, DAY))[0];
    assert.equal(s.quality, undefined);
  });
});
