/**
 * `getManyInRange` (lib/store/kv.ts): one entry per asked ID, in the asked order, whether the IDs
 * are a run (one range read), scattered among many others (10-key reads, judged after the first
 * batch of the range) or both; missing IDs come back empty. On a KV temp file.
 */
import assert from "node:assert/strict";
import { getManyInRange } from "../../lib/store/kv.ts";

const PREFIX = ["things"];
const id = (i: number) => `id-${String(i).padStart(6, "0")}`;

/** A store with entries `id(0)..id(n-1)` (value: the number), and the entries its lists return. */
async function store(n: number) {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const kv = await Deno.openKv(path);
  for (let i = 0; i < n; i += 500) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(n, i + 500); j++) op.set([...PREFIX, id(j)], j);
    assert.ok((await op.commit()).ok);
  }
  const counted = { listed: 0 };
  const list = kv.list.bind(kv);
  const proxy = new Proxy(kv, {
    get(target, prop) {
      if (prop === "list") {
        return async function* (...args: Parameters<Deno.Kv["list"]>) {
          for await (const e of list(...args)) {
            counted.listed++;
            yield e;
          }
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return {
    kv: proxy as Deno.Kv,
    counted,
    async [Symbol.asyncDispose]() {
      kv.close();
      await Deno.remove(path);
    },
  };
}

async function read(kv: Deno.Kv, nums: number[]) {
  const got = await getManyInRange<number>(kv, PREFIX, nums.map(id));
  return got.map((e) => e.value);
}

Deno.test("getManyInRange: a run of IDs, shuffled, with missing ones, in the asked order", async () => {
  await using s = await store(3000);
  await s.kv.delete([...PREFIX, id(600)]);
  await s.kv.delete([...PREFIX, id(1101)]);
  const nums = Array.from({ length: 1200 }, (_, i) => 500 + i).reverse();
  const want = nums.map((n) => (n === 600 || n === 1101 ? null : n));
  assert.deepEqual(await read(s.kv, nums), want);
  assert.ok(s.counted.listed <= 1200, `listed ${s.counted.listed}`);
});

Deno.test("getManyInRange: scattered IDs are all found and not listed twice over", async () => {
  await using s = await store(20_000);
  const nums = Array.from({ length: 2000 }, (_, i) => i * 9);
  nums.push(25_000); // beyond the stored ones
  const want = nums.map((n) => (n < 20_000 ? n : null));
  assert.deepEqual(await read(s.kv, [...nums].reverse()), [...want].reverse());
  // One batch of the range (1,000) shows they are scattered; 10-key reads find the rest.
  assert.ok(s.counted.listed <= 1000, `listed ${s.counted.listed}`);
});

Deno.test("getManyInRange: a dense first batch, then scattered IDs: every value right", async () => {
  await using s = await store(30_000);
  const nums = [
    ...Array.from({ length: 1500 }, (_, i) => i),
    ...Array.from({ length: 500 }, (_, i) => 2000 + i * 50),
  ];
  assert.deepEqual(await read(s.kv, nums), nums);
});

Deno.test("getManyInRange: a range with fewer entries than a batch, sparsely asked", async () => {
  await using s = await store(300);
  const nums = [0, 7, 99, 150, 200, 250, 299, 12, 13, 14, 15, 400];
  assert.deepEqual(await read(s.kv, nums), nums.map((n) => (n < 300 ? n : null)));
});
