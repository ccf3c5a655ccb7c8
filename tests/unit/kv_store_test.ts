/**
 * The KV layer (docs/kv.md; docs/architecture.md, "Writes and concurrency"): one module
 * spells every key, and every write retries `database is locked` below the domain.
 */
import assert from "node:assert/strict";
import { KvContentionError, withLockRetry } from "../../lib/store/kv.ts";

/** `kv` whose first `n` commits, sets and deletes throw SQLite's lock error. */
function lockedFor(kv: Deno.Kv, n: number) {
  let failures = 0;
  const maybeFail = () => {
    if (failures < n) {
      failures++;
      throw new TypeError("database is locked");
    }
  };
  const store = new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => {
            maybeFail();
            return commit();
          };
          return op;
        };
      }
      if (prop === "set" || prop === "delete") {
        const write = (Reflect.get(target, prop) as (...a: unknown[]) => Promise<unknown>).bind(
          target,
        );
        return (...args: unknown[]) => {
          maybeFail();
          return write(...args);
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { store, failures: () => failures };
}

Deno.test("withLockRetry: a locked commit is replayed whole, checks included, until it lands", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { store, failures } = lockedFor(kv, 3);
    const wrapped = withLockRetry(store);
    const before = await kv.get(["a"]);
    const r = await wrapped.atomic().check(before).set(["a"], 1).set(["b"], 2).sum(["n"], 5n)
      .commit();
    assert.equal(r.ok, true);
    assert.equal(failures(), 3);
    assert.deepEqual((await kv.getMany([["a"], ["b"]])).map((e) => e.value), [1, 2]);
    assert.equal((await kv.get<Deno.KvU64>(["n"])).value?.value, 5n);
    // A failed check is an answer, not an error: it is not retried.
    const stale = await wrapped.atomic().check(before).set(["a"], 9).commit();
    assert.equal(stale.ok, false);
    assert.equal((await kv.get(["a"])).value, 1);
    // set and delete are retried too; wrapping twice changes nothing.
    const twice = withLockRetry(withLockRetry(lockedFor(kv, 2).store));
    await twice.set(["c"], 3);
    await twice.delete(["a"]);
    assert.deepEqual((await kv.getMany([["a"], ["c"]])).map((e) => e.value), [null, 3]);
  } finally {
    kv.close();
  }
});

Deno.test("withLockRetry: a store that stays locked ends in KvContentionError, nothing written", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    let waited = 0;
    const wrapped = withLockRetry(lockedFor(kv, 1_000).store, {
      sleep: (ms) => {
        waited += ms;
        return Promise.resolve();
      },
    });
    await assert.rejects(() => wrapped.atomic().set(["x"], 1).commit(), KvContentionError);
    assert.equal((await kv.get(["x"])).value, null);
    assert.ok(waited > 100, `backed off ${waited} ms between the attempts`);
  } finally {
    kv.close();
  }
});

const KEY_PREFIXES =
  "days|market_locations|forecasts|aggregates|meta|submissions|leases|orchestrator|config_overlay|events|events_head|secrets|schedule_versions|orchestrator_passes|tso_status|actuals|balancing_group_sums|imbalance_prices";

Deno.test("KV keys: no module but lib/store/keys.ts spells a key", async () => {
  const root = new URL("../../", import.meta.url);
  const multiPart = new RegExp(`\\[\\s*"(${KEY_PREFIXES})"\\s*,`);
  const singlePart =
    /\[\s*"(orchestrator|config_overlay|events_head|events|orchestrator_passes)"\s*\]/;
  const offenders: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(new URL(dir, root))) {
      const rel = `${dir}${e.name}`;
      if (e.isDirectory) await walk(`${rel}/`);
      else if (/\.tsx?$/.test(e.name) && rel !== "lib/store/keys.ts") {
        const lines = (await Deno.readTextFile(new URL(rel, root))).split("\n");
        lines.forEach((line, i) => {
          const code = line.trim();
          if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*")) return;
          // A zod enum of words is no key (lib/wire/settlement.ts: `actual_source`).
          if (/z\.enum\(\[/.test(code)) return;
          if (multiPart.test(code) || singlePart.test(code)) offenders.push(`${rel}:${i + 1}`);
        });
      }
    }
  };
  for (const dir of ["lib/", "routes/", "islands/", "components/"]) await walk(dir);
  for (const file of ["app.ts", "main.ts"]) {
    const text = await Deno.readTextFile(new URL(file, root));
    if (multiPart.test(text) || singlePart.test(text)) offenders.push(file);
  }
  assert.deepEqual(offenders, []);
});

Deno.test("withLockRetry: a replayed commit stores the value as it was when set, not as changed later", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { store, failures } = lockedFor(kv, 2);
    const value = { values: new Float64Array([1, 2]), source: "customer" };
    const op = withLockRetry(store).atomic().set(["f"], value);
    value.values[0] = 99;
    value.source = "changed";
    assert.equal((await op.commit()).ok, true);
    assert.equal(failures(), 2, "the commit was replayed");
    const stored = (await kv.get<typeof value>(["f"])).value!;
    assert.deepEqual([stored.values[0], stored.source], [1, "customer"]);
  } finally {
    kv.close();
  }
});
