/**
 * Taking turns on a contended store (lib/store/turn.ts, docs/architecture.md "Writes and
 * concurrency"): a writer whose rounds are longer than another writer's stream of commits loses
 * every round without a turn, and gets its write in with one; a turn left behind by a crashed
 * holder is taken over once its lease ran out; the turn is given back in every case.
 */
import assert from "node:assert/strict";
import { KvContentionError, retryKv } from "../../lib/store/kv.ts";
import { retryWithTurn, TURN_LEASE_MS, type TurnGuard } from "../../lib/store/turn.ts";

const TURN: Deno.KvKey = ["turn"];
const N: Deno.KvKey = ["n"];
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Another replica: guarded increments of `n`, back to back, until `stop()`. */
function stream(kv: Deno.Kv) {
  let running = true;
  let commits = 0;
  const done = (async () => {
    while (running) {
      await retryWithTurn(kv, TURN, "other", async (turn) => {
        const e = await kv.get<number>(N);
        const r = await turn.guard(kv.atomic().check(e)).set(N, (e.value ?? 0) + 1).commit();
        if (r.ok) commits++;
        return r.ok ? true : undefined;
      });
    }
  })();
  return {
    commits: () => commits,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/**
 * A slow round: reads `n`, pauses (5 ms, or until `pause` resolves: the other writer committed
 * meanwhile), writes `slow`.
 */
const slowRound = (kv: Deno.Kv, turn?: TurnGuard, pause = () => tick(5)) => async () => {
  const e = await kv.get<number>(N);
  await pause();
  const op = kv.atomic().check(e).set(["slow"], e.value);
  const r = await (turn ? turn.guard(op) : op).commit();
  return r.ok ? e.value : undefined;
};

Deno.test("turn: a writer that loses every round to another one's stream gets its write in with the turn", async () => {
  const kv = await Deno.openKv(":memory:");
  const other = stream(kv);
  try {
    await tick(5);
    // Without taking turns it starves: every round loses to the stream (each round waits until
    // the stream committed after its read, so a loaded machine cannot let one round through).
    const committed = async () => {
      const at = other.commits();
      for (let i = 0; i < 2000 && other.commits() === at; i++) await tick(1);
    };
    await assert.rejects(
      retryKv("slow", slowRound(kv, undefined, committed), 8),
      KvContentionError,
    );
    const before = other.commits();
    let rounds = 0;
    const n = await retryWithTurn(kv, TURN, "slow", (turn) => {
      rounds++;
      return slowRound(kv, turn)();
    });
    assert.equal((await kv.get(["slow"])).value, n);
    assert.ok(rounds >= 4 && rounds <= 8, `rounds: ${rounds}`); // 3 lost, then with the turn
    await tick(20);
    assert.ok(other.commits() > before, "the other writer goes on after the turn");
    // The other writer may take the turn itself after losing rounds to ours (on a loaded
    // machine): once both stopped, nobody holds it.
    await other.stop();
    assert.equal((await kv.get(TURN)).value, null, "the turn was given back");
  } finally {
    await other.stop();
    kv.close();
  }
});

Deno.test("turn: a turn whose lease ran out (its holder crashed) is taken over", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await kv.set(TURN, { holder: "crashed", until: Date.now() - 1 });
    let rounds = 0;
    const out = await retryWithTurn(kv, TURN, "after a crash", async (turn) => {
      rounds++;
      const r = await turn.guard(kv.atomic().set(["x"], rounds)).commit();
      return r.ok ? rounds : undefined;
    });
    // Three rounds lose to the left-over turn, the fourth takes it over.
    assert.deepEqual([out, (await kv.get(["x"])).value], [4, 4]);
    assert.equal((await kv.get(TURN)).value, null);
    // A live turn of another holder is waited for, within the bound.
    await kv.set(TURN, { holder: "alive", until: Date.now() + TURN_LEASE_MS });
    await assert.rejects(
      retryWithTurn(kv, TURN, "behind a live turn", async (turn) => {
        const r = await turn.guard(kv.atomic().set(["y"], 1)).commit();
        return r.ok ? true : undefined;
      }, { attempts: 6, sleep: () => Promise.resolve() }),
      (err) => err instanceof KvContentionError && err.code === "ERR_KV_CONTENTION",
    );
    assert.equal((await kv.get(["y"])).value, null, "nothing written past another's turn");
  } finally {
    kv.close();
  }
});
