/**
 * The in-memory index of registered MaLo-IDs (lib/pipeline/registered_ids.ts): a build is valid
 * only when this process's commits lead from the versionstamp before the listing to the one after;
 * those commits are replayed on the listing; anything else leaves the lookups to the store.
 */
import assert from "node:assert/strict";
import { RegisteredIds, type RegisteredIdsSource } from "../../lib/pipeline/registered_ids.ts";

/** A source whose version entry reads `stamps` in turn and whose listing runs `during` midway. */
function source(
  stamps: (string | null)[],
  ids: string[],
  during: () => void = () => {},
): RegisteredIdsSource & { listings: number } {
  let read = 0;
  const s = {
    listings: 0,
    versionstamp: () => Promise.resolve(stamps[Math.min(read++, stamps.length - 1)]),
    ids: async function* () {
      s.listings++;
      for (const [i, id] of ids.entries()) {
        if (i === 1) during();
        yield await Promise.resolve(id);
      }
    },
  };
  return s;
}

Deno.test("registered ids: this process's commits during the listing are replayed; the index is then of the last one", async () => {
  const index = new RegisteredIds();
  const src = source(["s0", "s2"], ["a", "b"], () => {
    index.committed("s0", "s1", ["c"], []);
    index.committed("s1", "s2", [], ["a"]);
  });
  assert.equal(index.lookup("s0", ["a"]), undefined, "no index before a build");
  index.rebuild(src);
  await index.settled();
  assert.deepEqual(index.lookup("s2", ["a", "b", "c", "d"]), new Set(["b", "c"]));
  assert.equal(index.lookup("s1", ["b"]), undefined, "an index answers for its own version only");
  // Moves along with the next commit of this process, is dropped by one that started elsewhere.
  index.committed("s2", "s3", ["d"], []);
  assert.deepEqual(index.lookup("s3", ["a", "d"]), new Set(["d"]));
  // A lookup with a version read before this process's last commit: the index is ahead.
  assert.equal(index.isAhead("s2"), true);
  assert.equal(index.isAhead("s3"), false);
  index.committed("s9", "s10", ["e"], []);
  assert.equal(index.lookup("s10", ["e"]), undefined);
  assert.equal(index.isAhead("s2"), false, "no index, nothing ahead");
});

Deno.test("registered ids: a commit already in the first version read is not replayed again", async () => {
  const index = new RegisteredIds();
  const src = source(["s1", "s1"], ["a", "c"]);
  index.rebuild(src);
  index.committed("s0", "s1", ["c"], []); // reported after the build began, but read before it
  await index.settled();
  assert.deepEqual(index.lookup("s1", ["a", "b", "c"]), new Set(["a", "c"]));
});

Deno.test("registered ids: a change of another process during the build leaves no index; one build at a time", async () => {
  const index = new RegisteredIds();
  const src = source(["s0", "s7"], ["a", "b"]);
  index.rebuild(src);
  index.rebuild(src); // a build is running: not a second one
  await index.settled();
  assert.equal(src.listings, 1);
  assert.equal(index.lookup("s7", ["a"]), undefined);
  assert.equal(index.lookup("s0", ["a"]), undefined);
  // A failing store: no index, no exception out of rebuild or settled.
  const broken = new RegisteredIds();
  broken.rebuild({
    versionstamp: () => Promise.reject(new Error("database closed")),
    ids: async function* () {},
  });
  await broken.settled();
  assert.equal(broken.lookup(null, ["a"]), undefined);
});
