/**
 * Subprocess used by tests: appends `count` events to the KV file at `kvPath` through
 * {@link EventLog}, as a second service process would.
 *
 * Usage: deno run -A tests/support/append_events.ts <kvPath> <count> <label>
 * @module
 */
import { systemClock } from "../../lib/clock.ts";
import { EventLog } from "../../lib/store/events.ts";

const [kvPath, countText, label] = Deno.args;
const kv = await Deno.openKv(kvPath);
const log = new EventLog(kv, systemClock);
const count = Number(countText);
const pending: Promise<unknown>[] = [];
for (let i = 0; i < count; i++) {
  pending.push(
    log.append({ kind: "config_changed", message: `${label} ${i}`, data: { label, i } }),
  );
  if (i % 50 === 49) await Promise.all(pending.splice(0));
}
await Promise.all(pending);
kv.close();
