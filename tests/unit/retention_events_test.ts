/**
 * Old events to the archive (docs/retention.md, "Events"): one month per step into
 * `events/YYYY-MM.jsonl`; a crash after the file was written and before the deletion writes no
 * line twice on the next step; ids stay monotonic (the head is untouched) and the log's listing
 * and paging go on from the oldest kept event.
 * @module
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { archiveEventStep } from "../../lib/retention/event_archive.ts";
import { LocalArchive } from "../../lib/retention/target.ts";
import { EventLog } from "../../lib/store/events.ts";
import { withKv, withTempDir } from "../support/temp.ts";

const DAY = 86_400_000;

/** `kv` whose atomic commits throw (a process dying before its deletion lands). */
function crashingCommits(kv: Deno.Kv): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") {
        return () => {
          const op = target.atomic();
          op.commit = () => Promise.reject(new Error("crash before the delete"));
          return op;
        };
      }
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

Deno.test("events: a month per step, no line twice after a crash, ids and paging intact", async () => {
  await withKv((kv) =>
    withTempDir(async (dir) => {
      const clock = new FakeClock(Date.parse("2025-01-30T12:00:00Z"));
      const log = new EventLog(kv, clock);
      for (let i = 0; i < 6; i++) { // 3 in January, 3 in February
        await log.append({ kind: "config_changed", message: `e${i}` });
        clock.advance(DAY);
      }
      await log.append({ kind: "config_changed", message: "recent" }); // 2025-02-05
      const target = new LocalArchive(`${dir}/archive`);
      const cutoff = Date.parse("2025-02-04T00:00:00Z");

      await assert.rejects(archiveEventStep(crashingCommits(kv), target, cutoff), /crash/);
      assert.equal((await log.list({ limit: 10 })).length, 7, "nothing deleted");
      const jan1 = await Deno.readTextFile(`${dir}/archive/events/2025-01.jsonl`);
      assert.equal(jan1.split("\n").filter(Boolean).length, 2, "30 and 31 January");

      assert.deepEqual(await archiveEventStep(kv, target, cutoff), {
        archived: 2,
        month: "2025-01",
      });
      assert.equal(await Deno.readTextFile(`${dir}/archive/events/2025-01.jsonl`), jan1);
      assert.deepEqual(await archiveEventStep(kv, target, cutoff), {
        archived: 3,
        month: "2025-02",
      });
      assert.deepEqual(await archiveEventStep(kv, target, cutoff), { archived: 0, month: null });
      const feb = await Deno.readTextFile(`${dir}/archive/events/2025-02.jsonl`);
      assert.deepEqual(feb.trim().split("\n").map((l) => JSON.parse(l).id), [3, 4, 5]);

      // The store keeps 6 and 7; ids go on from the head; paging starts at the oldest kept.
      assert.deepEqual((await log.list({ limit: 10 })).map((e) => e.id), [6, 7]);
      assert.deepEqual((await log.list({ limit: 10, afterId: 0 })).map((e) => e.id), [6, 7]);
      assert.equal((await log.append({ kind: "config_changed", message: "next" })).id, 8);
      assert.equal(await log.head(), 8);
    })
  );
});
