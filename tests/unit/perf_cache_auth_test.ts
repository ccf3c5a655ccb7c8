/**
 * The cheap pieces of the hot request path: the key ring still looks at every key, and
 * {@link CachedEntry} serves own writes at once, another handle's writes after its maximum age,
 * and never an older read over a newer write.
 */
import assert from "node:assert/strict";
import { KeyRing } from "../../lib/auth/api_keys.ts";
import { CachedEntry } from "../../lib/config/cached_entry.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("key ring: the principal of each key; a shared object per key", () => {
  const ring = new KeyRing([
    { name: "ops", scope: "process", secret: "proc-secret-0001-aaaaaaaa", source: "P" },
    { name: "acme", scope: "external", secret: "ext-secret-0001-cccccccccc", source: "E" },
  ]);
  const p = ring.match("proc-secret-0001-aaaaaaaa");
  assert.equal(p?.caller, "ops");
  assert.equal(p, ring.match("proc-secret-0001-aaaaaaaa"));
  assert.ok(Object.isFrozen(p));
  assert.equal(ring.match("ext-secret-0001-cccccccccc")?.caller, "acme");
  assert.equal(ring.match("proc-secret-0001-aaaaaaa"), undefined);
});

Deno.test("cached entry: own writes at once, other handles' after the maximum age", async () => {
  await using tmp = await tempDir("perf-cache-");
  const dir = tmp.path;
  const a = await Deno.openKv(`${dir}/c.kv`);
  const b = await Deno.openKv(`${dir}/c.kv`);
  const key = ["config_overlay"];
  const cache = new CachedEntry<{ v: number }>(a, key, { maxAgeMs: 300 });
  try {
    assert.equal((await cache.get()).value, null);
    const w = await a.set(key, { v: 1 });
    cache.written({ v: 1 }, w.versionstamp);
    assert.deepEqual(cache.peek()?.value, { v: 1 }, "own write seen without a read");

    await b.set(key, { v: 2 }); // another replica
    assert.deepEqual((await cache.get()).value, { v: 1 }, "memory within the maximum age");
    await new Promise((r) => setTimeout(r, 350));
    assert.equal(cache.peek(), undefined, "never served past the maximum age");
    assert.deepEqual((await cache.get()).value, { v: 2 });

    // A read that started before an own write does not replace the write.
    const slow = cache.read();
    const w3 = await a.set(key, { v: 3 });
    cache.written({ v: 3 }, w3.versionstamp);
    await slow;
    assert.deepEqual(cache.peek()?.value, { v: 3 });

    // After a delete: null.
    await a.delete(key);
    cache.written(null, null);
    assert.equal(cache.peek()?.value, null);
  } finally {
    await cache.close();
    a.close();
    b.close();
  }
});

Deno.test("cached entry: kv.watch re-reads a change made through this store", async () => {
  await using tmp = await tempDir("perf-cache-");
  const dir = tmp.path;
  const kv = await Deno.openKv(`${dir}/w.kv`);
  const key = ["orchestrator"];
  const cache = new CachedEntry<{ state: string }>(kv, key, { maxAgeMs: 60_000 });
  try {
    cache.watch();
    assert.equal((await cache.get()).value, null);
    await kv.set(key, { state: "running" }); // not told through written()
    const t0 = performance.now();
    while (cache.peek()?.value?.state !== "running") {
      assert.ok(performance.now() - t0 < 2_000, "the watch did not refresh the cache");
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await cache.close();
    kv.close();
  }
});
