/**
 * A clock-change day from ingestion to a confirmed schedule (docs/pipeline.md, "Schedules to the
 * TSO (Fahrplan)"): on 2027-03-28 (92 quarter-hours) and 2026-10-25 (100), forecasts → aggregate
 * → ESS documents in the outbox → the TSO simulator's ACK and CNF → imported: every area
 * `confirmed`; a second aggregate gives version 2 with the same message identification, confirmed
 * again.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, the outbox and inbox on disk, the
 * TSO simulator (dev/tso_simulator.ts) answering from the outbox, the injected clock.
 */
import assert from "node:assert/strict";
import { XMLParser } from "fast-xml-parser";
import { startTsoSimulator } from "../../dev/tso_simulator.ts";
import { quarterHourCount } from "../../lib/domain/delivery_day.ts";
import { call } from "../support/app.ts";
import { postForecast, proc, putLocation, rig, step } from "../support/day_ahead_rig.ts";
import { FILES_CHANNEL_ENV, PARTIES } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" });

for (
  const [day, n, clockIso] of [
    ["2027-03-28", 92, "2027-03-26T08:00:00Z"],
    ["2026-10-25", 100, "2026-10-23T08:00:00Z"],
  ] as const
) {
  Deno.test(`clock-change day ${day} (${n} quarter-hours): ingestion to a confirmed schedule, then version 2`, async () => {
    const r = await rig(clockIso, {
      ...FILES_CHANNEL_ENV,
      ACTIVE_CONTROL_AREAS: `${AREAS.amprion},${AREAS.tennet}`,
      SCHEDULE_INBOX_DIR: `${Deno.makeTempDirSync({ prefix: "bridge-inbox-" })}`,
    });
    const cfg = await call(`${r.s.url}/v1/console/config`, { headers: proc });
    const inbox = String(
      (cfg.body as { fields: Record<string, { value: unknown }> }).fields.schedule_inbox_dir.value,
    );
    const tsos = startTsoSimulator({ outbox: r.outbox, inbox, pollMs: 20 });
    const confirmedAll = async (version: number) => {
      for (let i = 0; i < 100; i++) {
        await call(`${r.s.url}/v1/schedule-responses/import`, { method: "POST", headers: proc });
        const o = await call(`${r.s.url}/v1/console/delivery-days`, { headers: proc });
        const d = (o.body as {
          delivery_days: {
            delivery_day: string;
            schedules: { tso_status: string; version: number }[];
          }[];
        }).delivery_days.find((x) => x.delivery_day === day);
        const s = d?.schedules ?? [];
        if (
          s.length === 2 && s.every((x) => x.tso_status === "confirmed" && x.version === version)
        ) {
          return true;
        }
        await new Promise((res) => setTimeout(res, 20)); // the simulator answers from its own poll
      }
      return false;
    };
    try {
      assert.equal(quarterHourCount(day), n);
      await putLocation(r.s, 1, { control_area: AREAS.amprion, direction: "consumption" });
      await putLocation(r.s, 2, { control_area: AREAS.tennet, direction: "generation" });
      await postForecast(r.s, 1, day, Array(n).fill(1_000));
      await postForecast(r.s, 2, day, Array(n).fill(400));
      assert.equal((await step(r.s, day, "aggregate")).status, 200);
      assert.equal((await step(r.s, day, "submit")).status, 200);
      const file = `${r.outbox}/${
        day.replaceAll("-", "")
      }_TPS_${PARTIES.sender}_10XDE-RWENET---W_001.xml`;
      const doc = xml.parse(await Deno.readTextFile(file)).ScheduleMessage;
      const purchase = [].concat(doc.ScheduleTimeSeries)[0] as {
        Period: { Interval: { Pos: { "@v": string }; Qty: { "@v": string } }[] };
      };
      assert.equal(purchase.Period.Interval.length, n);
      assert.equal(purchase.Period.Interval[n - 1].Pos["@v"], String(n));
      assert.equal(purchase.Period.Interval[0].Qty["@v"], "1.000");
      assert.ok(await confirmedAll(1), "both areas confirmed (version 1)");

      await postForecast(r.s, 1, day, Array(n).fill(1_500));
      assert.equal((await step(r.s, day, "aggregate")).status, 200);
      assert.equal((await step(r.s, day, "submit")).status, 200);
      const v2 = xml.parse(await Deno.readTextFile(file.replace("_001.xml", "_002.xml")))
        .ScheduleMessage;
      assert.equal(v2.MessageVersion["@v"], "2");
      assert.equal(v2.MessageIdentification["@v"], doc.MessageIdentification["@v"]);
      assert.ok(await confirmedAll(2), "both areas confirmed (version 2)");
    } finally {
      await tsos.close();
      await r.close();
      await Deno.remove(inbox, { recursive: true }).catch(() => {});
    }
  });
}
