/**
 * The stored layout of actuals (docs/actuals.md): values packed per location and
 * day, and records written before the packing (arrays, `null` = not metered) still read, merged
 * and archived as they were.
 */
import assert from "node:assert/strict";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { actualsOfDay, storeActuals } from "../../lib/settlement/actuals_store.ts";
import { KEYS } from "../../lib/store/keys.ts";
import { tempDir } from "../support/temp.ts";

const DAY = "2027-03-10";
const ID = "51238696781";

Deno.test("actuals: a record written as an array is read, merged and stored packed", async () => {
  await using tmp = await tempDir("settle-packed-");
  const kv = await Deno.openKv(`${tmp.path}/bridge.kv`);
  try {
    const n = deliveryDay(DAY).quarterHours.length;
    const owner = { kind: "market_location" as const, malo_id: ID };
    const legacy = Array.from({ length: n }, (_, i) => i < 2 ? null : 1.25);
    await kv.set(KEYS.actuals(DAY, ID), {
      owner,
      day: DAY,
      kwh: legacy,
      updated_at: "2027-03-11T05:00:00.000Z",
      source: "before",
    });
    assert.deepEqual((await actualsOfDay(kv, DAY)).get(ID)!.kwh, legacy);

    // Quarter-hours 0–3: two new, one unchanged, one replaced.
    const start = deliveryDay(DAY).start.epochMilliseconds;
    const out = await storeActuals(
      kv,
      [{ owner, start, kwh: [0.5, 0.75, 1.25, 2], where: "t" }],
      "after",
      Date.parse("2027-03-12T05:00:00Z"),
    );
    assert.deepEqual([out.added, out.unchanged, out.replaced], [2, 1, 1]);
    const read = (await actualsOfDay(kv, DAY)).get(ID)!;
    assert.deepEqual(read.kwh.slice(0, 5), [0.5, 0.75, 1.25, 2, 1.25]);
    assert.equal(read.kwh.length, n);
    assert.equal(read.source, "after");
    const raw = (await kv.get<Record<string, unknown>>(KEYS.actuals(DAY, ID))).value!;
    assert.ok(raw.kwh instanceof Float64Array, "stored packed");
    assert.deepEqual(Object.keys(raw).sort(), ["kwh", "source", "updated_at"]);
    assert.deepEqual(read.owner, owner);
    assert.equal(read.day, DAY);

    // A later series with a quarter-hour not metered stays unknown (null), never zero.
    const other = { kind: "market_location" as const, malo_id: "51238696782" };
    await storeActuals(
      kv,
      [{ owner: other, start: start + 900_000, kwh: [3], where: "t" }],
      "x",
      0,
    );
    const o = (await actualsOfDay(kv, DAY)).get("51238696782")!.kwh;
    assert.deepEqual([o[0], o[1], o[2]], [null, 3, null]);
  } finally {
    kv.close();
  }
});
