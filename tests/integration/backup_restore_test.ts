/**
 * Online backup and restore of the KV file (docs/backup.md): `deploy/backup.sh backup` copies the
 * store of a running service process while it writes market locations, config changes and
 * forecasts; `restore` puts the copy into a fresh directory; a service started on it serves the
 * store as of one instant: events 1..N without a hole, each whole and equal to the live store's
 * first N, and every write an event in that prefix reports (a market location, a config change,
 * the delivery day) present, readable through the API.
 */
import assert from "node:assert/strict";
import {
  addDays,
  deliveryDay,
  localDayOf,
  quarterHourCount,
} from "../../lib/domain/delivery_day.ts";
import { type EventRecord, EventRecordSchema } from "../../lib/wire/events.ts";
import { call } from "../support/app.ts";
import { env as pipelineEnv, ext, flat, proc } from "../support/pipeline.ts";
import { AREAS, maloId } from "../support/portfolio.ts";
import { spawnService } from "../support/service_process.ts";
import { backupScript, skipSqlite3Tests, SQLITE3_PATH } from "../support/sqlite3.ts";

const ignore = skipSqlite3Tests("backup and restore");

/** Every event the service at `url` serves, oldest first (pages of 1,000). */
async function allEvents(url: string): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  for (let after = 0;;) {
    const r = await call(`${url}/v1/console/events?limit=1000&after_id=${after}`, {
      headers: proc,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const page = (r.body as { events: EventRecord[] }).events;
    if (!page.length) return out;
    out.push(...page);
    after = page[page.length - 1].id;
  }
}

/** The MaLo-ID of every market location the service at `url` serves (pages of 1,000). */
async function allLocationIds(url: string): Promise<string[]> {
  const out: string[] = [];
  for (let after = "";;) {
    const r = await call(
      `${url}/v1/market-locations?limit=1000${after ? `&after=${after}` : ""}`,
      { headers: ext },
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const page = (r.body as { market_locations: { malo_id: string }[] }).market_locations;
    if (!page.length) return out;
    out.push(...page.map((m) => m.malo_id));
    after = page[page.length - 1].malo_id;
  }
}

/**
 * One writer: calls `write(i)` for i = 1, 2, … until stopped; counts the 2xx answers, ends at
 * the first failure.
 */
function writer(write: (i: number) => Promise<number>) {
  let stopped = false;
  const state = { done: 0, failures: [] as string[] };
  const running = (async () => {
    for (let i = 1; !stopped && !state.failures.length; i++) {
      try {
        const status = await write(i);
        if (status >= 200 && status < 300) state.done = i;
        else state.failures.push(`write ${i}: ${status}`);
      } catch (err) {
        state.failures.push(`write ${i}: ${err}`);
      }
    }
  })();
  return {
    state,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** Resolves once `cond()` holds (polled every 20 ms); fails when a writer failed. */
async function until(cond: () => boolean, writers: { state: { failures: string[] } }[]) {
  while (!cond()) {
    for (const w of writers) assert.deepEqual(w.state.failures, []);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Batches of 500 market locations written before the backup. */
const BATCHES = 4;
const mloBody = JSON.stringify({ control_area: AREAS.amprion, direction: "consumption" });

Deno.test({
  name: "backup while the service writes; restored: a gapless event prefix, its writes present",
  ignore,
  async fn() {
    const work = await Deno.makeTempDir({ prefix: "bridge-backup-" });
    const live = await spawnService(pipelineEnv);
    let restoredSvc: Awaited<ReturnType<typeof spawnService>> | undefined;
    const writers: ReturnType<typeof writer>[] = [];
    try {
      // A delivery day with state: two market locations, forecasts, an aggregate.
      const day = addDays(localDayOf(Date.now()), 2);
      const n = quarterHourCount(day);
      for (const id of [maloId(1), maloId(2)]) {
        const r = await call(`${live.url}/v1/market-locations/${id}`, {
          method: "PUT",
          headers: ext,
          body: mloBody,
        });
        assert.equal(r.status, 201, JSON.stringify(r.body));
      }
      const forecast = (kw: number) =>
        call(`${live.url}/v1/forecasts`, {
          method: "POST",
          headers: ext,
          body: JSON.stringify({
            forecasts: [1, 2].map((m) => ({
              market_location_id: maloId(m),
              delivery_day: day,
              unit: "kW",
              values: flat(n, kw + m),
            })),
          }),
        });
      assert.equal((await forecast(100)).status, 200);
      const agg = await call(`${live.url}/v1/delivery-days/${day}/aggregate`, {
        method: "POST",
        headers: proc,
      });
      assert.equal(agg.status, 200, JSON.stringify(agg.body));
      // Yesterday's actuals (docs/settlement.md): in the store, so in the backup.
      const yesterday = deliveryDay(addDays(localDayOf(Date.now()), -1)).start.toString();
      const actuals = `market_location_id,start,kwh\n${maloId(1)},${yesterday},1.25\n`;
      const postActuals = (url: string) =>
        call(`${url}/v1/actuals`, {
          method: "POST",
          headers: { ...ext, "content-type": "text/csv" },
          body: actuals,
        });
      assert.equal(((await postActuals(live.url)).body as { added: number }).added, 1);
      // A store of some hundred pages, so the copy takes more than one step of sqlite3's backup.
      for (let b = 0; b < BATCHES; b++) {
        const market_locations = Array.from({ length: 500 }, (_, i) => ({
          malo_id: maloId(100_000 + b * 500 + i),
          control_area: AREAS.tennet,
          direction: "generation",
          name: `batch ${b} location ${i}`,
        }));
        const r = await call(`${live.url}/v1/market-locations`, {
          method: "PUT",
          headers: ext,
          body: JSON.stringify({ market_locations }),
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
      }

      // Three writers, each waiting for its answer before the next write.
      const locations = writer(async (i) =>
        (await call(`${live.url}/v1/market-locations/${maloId(1000 + i)}`, {
          method: "PUT",
          headers: ext,
          body: mloBody,
        })).status
      );
      const config = writer(async (i) =>
        (await call(`${live.url}/v1/console/config`, {
          method: "PUT",
          headers: proc,
          body: JSON.stringify({ sftp_remote_dir: `/out/${i}` }),
        })).status
      );
      const forecasts = writer(async (i) => (await forecast(200 + i)).status);
      writers.push(locations, config, forecasts);

      await until(() => locations.state.done >= 15 && config.state.done >= 5, writers);
      const locationsBefore = locations.state.done;
      const backupFile = `${work}/backups/bridge-copy.kv`;
      await Deno.mkdir(`${work}/backups`);
      const made = await backupScript(["backup", live.kvPath, backupFile]);
      const locationsAfter = locations.state.done;
      assert.equal(made.code, 0, made.stderr);
      assert.match(made.stdout, /^backup: .*bridge-copy\.kv \(\d+ bytes, \d+ KV entries\) from /);
      // Only the finished copy is left: no temporary file, no -wal or -shm beside it.
      assert.deepEqual([...Deno.readDirSync(`${work}/backups`)].map((e) => e.name), [
        "bridge-copy.kv",
      ]);
      // The service goes on writing after the backup.
      await until(() => locations.state.done >= locationsAfter + 10, writers);
      for (const w of writers) await w.stop();
      for (const w of writers) assert.deepEqual(w.state.failures, []);
      const liveEvents = await allEvents(live.url);
      await live.close();

      // Restore into a fresh directory.
      const kvPath = `${work}/restored/data/bridge.kv`;
      const restored = await backupScript(["restore", backupFile, kvPath]);
      assert.equal(restored.code, 0, restored.stderr);
      assert.match(restored.stdout, /start the service with KV_PATH=.*restored\/data\/bridge\.kv/);
      const again = await backupScript(["restore", backupFile, kvPath]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /bridge\.kv exists: restore into a fresh path/);

      // The copy as stored: every entry readable, events 1..N whole and the live store's first N.
      const kv = await Deno.openKv(kvPath);
      let stored: EventRecord[];
      try {
        let entries = 0;
        for await (const _ of kv.list({ prefix: [] })) entries++;
        assert.ok(entries > 0);
        stored = [];
        for await (const e of kv.list<EventRecord>({ prefix: ["events"] })) {
          stored.push(EventRecordSchema.parse(e.value));
          assert.deepEqual(e.key, ["events", e.value.id]);
        }
        const head = await kv.get<number>(["events_head"]);
        assert.equal(head.value, stored.length);
      } finally {
        kv.close();
      }
      const N = stored.length;
      assert.deepEqual(stored.map((e) => e.id), Array.from({ length: N }, (_, i) => i + 1));
      assert.deepEqual(stored, liveEvents.slice(0, N));
      assert.ok(N < liveEvents.length, `the copy (${N}) holds no later writes`);

      // What the prefix reports: every answered market-location PUT, every config change.
      const putIds = stored.flatMap((e) => {
        const m = /called PUT \/v1\/market-locations\/(\d{11}) \((20[01])\)$/.exec(e.message);
        return e.kind === "api_call" && m ? [m[1]] : [];
      });
      const configChanges = stored.filter((e) => e.kind === "config_changed").length;
      assert.ok(putIds.length >= 2 + locationsBefore, "every write before the backup is in it");

      // The service on the restored copy.
      restoredSvc = await spawnService(pipelineEnv, { kvPath });
      const served = await allEvents(restoredSvc.url);
      assert.deepEqual(served.slice(0, N), stored);
      assert.ok(served.slice(N).every((e) => e.id > N && e.ts >= stored[N - 1].ts));
      // Market locations: those the prefix reports, and at most the one write in flight.
      const ids = await allLocationIds(restoredSvc.url);
      const batched = ids.filter((id) => id >= maloId(100_000));
      assert.equal(batched.length, BATCHES * 500);
      ids.splice(0, ids.length, ...ids.filter((id) => id < maloId(100_000)));
      const inFlight = maloId(1000 + putIds.length - 1);
      const expected = [...putIds, inFlight].sort();
      assert.ok(ids.every((id) => expected.includes(id)), `unexpected: ${ids}`);
      assert.ok(putIds.every((id) => ids.includes(id)), "every reported write restored");
      // The config overlay: the last reported change, or the one in flight.
      const cfg = await call(`${restoredSvc.url}/v1/console/config`, { headers: proc });
      const dir = (cfg.body as { fields: Record<string, { value: unknown; source: string }> })
        .fields.sftp_remote_dir;
      assert.ok(configChanges >= 5);
      assert.ok(
        [`/out/${configChanges}`, `/out/${configChanges + 1}`].includes(dir.value as string),
        `sftp_remote_dir ${dir.value} after ${configChanges} reported changes`,
      );
      assert.equal(dir.source, "runtime");
      // The delivery day's state.
      const days = await call(`${restoredSvc.url}/v1/console/delivery-days`, { headers: proc });
      const entry = (days.body as {
        delivery_days: { delivery_day: string; input_version: number; steps: object }[];
      }).delivery_days.find((d) => d.delivery_day === day);
      assert.ok(entry, `${day} restored`);
      assert.ok((entry.steps as { aggregated: unknown }).aggregated, "aggregate step restored");
      assert.ok(entry.input_version >= 1);
      // The actuals: the same value again is unchanged in the restored store.
      const again2 = (await postActuals(restoredSvc.url)).body as Record<string, number>;
      assert.deepEqual([again2.added, again2.unchanged], [0, 1]);
    } finally {
      for (const w of writers) await w.stop();
      await restoredSvc?.close();
      await live.close().catch(() => {});
      await Deno.remove(work, { recursive: true });
    }
  },
});

Deno.test({
  name: "backup script: each refusal names its reason, exits 1 (usage 2) and leaves no file",
  ignore,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "bridge-backup-errors-" });
    try {
      const kv = await Deno.openKv(`${dir}/bridge.kv`);
      await kv.set(["events_head"], 0);
      kv.close();
      await Deno.writeTextFile(`${dir}/notes.txt`, "not a database\n");
      const other = new Deno.Command(SQLITE3_PATH, {
        args: [`${dir}/other.db`, "CREATE TABLE t (x)"],
      });
      assert.equal((await other.output()).code, 0);
      const before = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
      const cases: [string[], RegExp, string?][] = [
        [["backup", `${dir}/none.kv`, `${dir}/b.kv`], /none\.kv: no such KV file/],
        [["backup", `${dir}/notes.txt`, `${dir}/b.kv`], /notes\.txt is not a readable SQLite file/],
        [
          ["backup", `${dir}/other.db`, `${dir}/b.kv`],
          /other\.db is a SQLite file but not a Deno KV/,
        ],
        [
          ["backup", `${dir}/bridge.kv`, `${dir}/notes.txt`],
          /notes\.txt exists: choose a new name/,
        ],
        [["backup", `${dir}/bridge.kv`, `${dir}/no/b.kv`], /\/no: no such directory/],
        [["backup", "https://kv.example/connect", `${dir}/b.kv`], /is a KV Connect URL/],
        [["restore", `${dir}/notes.txt`, `${dir}/r.kv`], /notes\.txt is not a readable SQLite/],
        [
          ["restore", `${dir}/other.db`, `${dir}/bridge.kv`],
          /bridge\.kv exists: restore into a fresh/,
        ],
        [
          ["backup", `${dir}/bridge.kv`, `${dir}/b.kv`],
          /not found: install Debian's sqlite3/,
          "/no/sqlite3",
        ],
      ];
      for (const [args, reason, sqlite3] of cases) {
        const r = await backupScript(args, sqlite3);
        assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
        assert.match(r.stderr, reason);
        assert.match(r.stderr, /^backup\.sh: /);
      }
      assert.equal((await backupScript(["copy", "a", "b"])).code, 2);
      assert.equal((await backupScript(["backup", `${dir}/bridge.kv`])).code, 2);
      // Nothing was written: no backup, no temporary file, no restored store.
      assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), before);
      // And the good path on the same store works.
      const ok = await backupScript(["backup", `${dir}/bridge.kv`, `${dir}/b.kv`]);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stdout, /\(\d+ bytes, 1 KV entries\)/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
