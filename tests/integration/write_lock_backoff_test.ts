/**
 * A write that keeps losing its rounds does not hold up the process's other writes
 * (docs/mixed-load.md, "The 5.8 s request"): a forecast upload whose day state is changed by
 * another KV handle (as the pipeline worker's steps do during a pass) after each of its reads loses
 * round after round and waits in its backoff; a single market-location `PUT` of the same process
 * sent meanwhile is committed during that backoff, not after the upload. Before, the upload held
 * the process's master-data lock through all its rounds and backoffs, and every `PUT` and upload
 * behind it waited as long. Real KV on a temp file, two handles.
 */
import assert from "node:assert/strict";
import { ingestForecasts } from "../../lib/pipeline/forecasts.ts";
import { putMarketLocation } from "../../lib/pipeline/market_locations.ts";
import { readDay, updateDay } from "../../lib/pipeline/day_state.ts";
import { KEYS } from "../../lib/store/keys.ts";
import { customerValues, location, nowFor } from "../support/profile_portfolio.ts";
import { withTempDir } from "../support/temp.ts";

const DAY = "2026-11-26";
/** Rounds of the upload the other handle makes lose. */
const LOST = 6;

Deno.test("a forecast upload that keeps losing its rounds lets a PUT of the same process commit in its backoff", async () => {
  await withTempDir(async (dir) => {
    const app = await Deno.openKv(`${dir}/t.kv`); // the request thread's handle
    const worker = await Deno.openKv(`${dir}/t.kv`); // the pipeline worker's handle
    try {
      const now = nowFor(DAY);
      const loc = location(0);
      await putMarketLocation(app, loc.malo_id, loc, now);
      const done: string[] = [];
      let bumps = 0;
      let put: Promise<unknown> | undefined;
      // After each read of the day state by the upload, the worker records a step on the day:
      // the upload's commit, which checks the state it read, fails.
      const day = JSON.stringify(KEYS.day(DAY));
      const kv = new Proxy(app, {
        get(target, prop) {
          if (prop === "getMany") {
            return async (keys: Deno.KvKey[]) => {
              const entries = await target.getMany(keys);
              if (keys.some((k) => JSON.stringify(k) === day) && bumps < LOST) {
                bumps++;
                await updateDay(
                  worker,
                  DAY,
                  (s) =>
                    Promise.resolve({
                      state: { ...s, input_version: s.input_version + 1 },
                      result: 0,
                    }),
                );
                // The PUT arrives while the upload's first round is still running.
                put ??= putMarketLocation(kv, loc.malo_id, { ...loc, annual_kwh: 4_242 }, now)
                  .then(() => done.push("put"));
              }
              return entries;
            };
          }
          const v = Reflect.get(target, prop);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
      const item = { malo_id: loc.malo_id, delivery_day: DAY, values: customerValues(0, 96) };
      const upload = ingestForecasts(kv, [item], "acme", now).then((r) => {
        done.push("upload");
        return r;
      });
      const [results] = await Promise.all([
        upload,
        (async () => {
          while (!put) await new Promise((r) => setTimeout(r, 1));
          await put;
        })(),
      ]);

      assert.equal(bumps, LOST, "the upload lost as many rounds as the worker changed its day");
      assert.deepEqual(done, ["put", "upload"], "the PUT did not wait for the upload's retries");
      assert.equal(results[0].changed, 1);
      const stored = await app.get<{ values: number[] }>(KEYS.forecast(DAY, loc.malo_id));
      assert.deepEqual(stored.value?.values, item.values);
      const put2 = await app.get<{ annual_kwh: number }>(KEYS.marketLocation(loc.malo_id));
      assert.equal(put2.value?.annual_kwh, 4_242);
      assert.equal((await readDay(app, DAY)).value!.input_version, LOST + 1);
    } finally {
      worker.close();
      app.close();
    }
  });
});
