/**
 * Facts repeated per control area are one attention item (docs/console_attention.md): the
 * energy locked in today's frozen quarter-hours of four areas is one `locked_deviation` item with
 * four amounts in the overview's area order; one area keeps its single sentence; status requests
 * of the same version asked at the same minute are one `status_requested` item, different ones
 * stay apart. Built through `attention()` from days shaped as `GET /v1/console/delivery-days`
 * answers them, checked against the wire schema.
 */
import assert from "node:assert/strict";
import { attention } from "../../lib/console/attention.ts";
import { emptyDay, overview } from "../../lib/pipeline/day_state.ts";
import { AttentionItemSchema } from "../../lib/wire/attention.ts";
import type { DayOverview } from "../../lib/wire/delivery_days.ts";
import { intradayEntry, type ScheduleEntry } from "../support/intraday_entry.ts";

type Entry = ScheduleEntry;
// The overview lists areas in KV order (by EIC): TransnetBW, TenneT, Amprion, 50Hertz.
const [TRANSNET, TENNET, AMPRION, HERTZ] = [
  "10YDE-ENBW-----N",
  "10YDE-EON------1",
  "10YDE-RWENET---I",
  "10YDE-VE-------2",
];
const TODAY = "2026-11-24";
// 10:14 Berlin on Tue 24 Nov 2026 (CET, UTC+1).
const NOW = Date.parse("2026-11-24T09:14:00Z");
const running = { state: "running" as const, failed_passes_in_a_row: 0 };

const entry = (area: string, over: Partial<Entry> = {}): Entry =>
  intradayEntry(area, `${area}.xml`, over);
const day = (d: string, schedules: Entry[]): DayOverview => ({
  ...overview(emptyDay(d), NOW, "12:00"),
  tso_deadline: "2026-11-23T13:30:00Z",
  schedules_open_until: "2026-11-24T22:30:00Z",
  schedules,
});
const items = (days: DayOverview[]) => {
  const list = attention({ days, orchestrator: running, nowMs: NOW });
  for (const i of list) AttentionItemSchema.parse(i);
  return list;
};
const locked = (mwh: number[]) =>
  [TRANSNET, TENNET, AMPRION, HERTZ].map((a, i) => entry(a, { locked_deviation_mwh: mwh[i] }));

Deno.test("attention: four areas' locked energy is one item with four amounts in the overview's order; one area one sentence", () => {
  const list = items([day(TODAY, locked([0.25, 1.1, 4.2, 0.3]))]);
  const found = list.filter((i) => i.code === "locked_deviation");
  assert.equal(found.length, 1, JSON.stringify(list));
  const [item] = found;
  assert.equal(item.level, "warn");
  assert.equal(item.delivery_day, TODAY);
  assert.equal(item.control_area, undefined);
  assert.deepEqual(item.control_areas, [TRANSNET, TENNET, AMPRION, HERTZ]);
  assert.equal(
    item.message,
    "Today (Tue 24 Nov): energy that can no longer be scheduled away: 250 kWh in TransnetBW, " +
      "1.10 MWh in TenneT TSO, 4.20 MWh in Amprion, 300 kWh in 50Hertz; the frozen quarter-hours " +
      "deviate from the schedules the TSOs have.",
  );
  // Below 0.1 MWh an area is left out.
  const some = items([day(TODAY, locked([0.099, 2.4, 0, 0.1]))])
    .filter((i) => i.code === "locked_deviation");
  assert.deepEqual(some.map((i) => i.control_areas), [[TENNET, HERTZ]]);
  assert.match(some[0].message, /away: 2\.40 MWh in TenneT TSO, 100 kWh in 50Hertz; the frozen/);
  // One area: the single sentence with its EIC, as before.
  const one = items([day(TODAY, locked([0, 0.05, 0, 2.4]))])
    .filter((i) => i.code === "locked_deviation");
  assert.deepEqual(one, [{
    code: "locked_deviation",
    level: "warn",
    delivery_day: TODAY,
    control_area: HERTZ,
    message: "Today (Tue 24 Nov): 2.40 MWh can no longer be scheduled away in 50Hertz " +
      "(10YDE-VE-------2): the frozen quarter-hours deviate from the schedule the TSO has.",
  }]);
});

Deno.test("attention: status requests asked together are one item; another version or minute stays apart", () => {
  const asked = (at: string) => ({ at, file: "srq.xml", state: "ack" as const, answered: false });
  const d = day(TODAY, [
    entry(TRANSNET, { tso_status: "sent", status_request: asked("2026-11-24T06:30:00Z") }),
    entry(TENNET, { tso_status: "sent", status_request: asked("2026-11-24T06:30:20Z") }),
    entry(AMPRION, { tso_status: "sent", status_request: asked("2026-11-24T06:30:00Z") }),
    entry(HERTZ, {
      tso_status: "sent",
      status_request: { ...asked("2026-11-24T06:30:00Z"), answered: true },
    }),
  ]);
  const list = items([d]).filter((i) => i.code === "status_requested");
  assert.deepEqual(list.map((i) => [i.level, i.control_areas, i.control_area]), [
    ["warn", [TRANSNET, TENNET, AMPRION], undefined],
  ]);
  assert.equal(
    list[0].message,
    "Today (Tue 24 Nov): TransnetBW, TenneT TSO and Amprion have not answered schedule v7; " +
      "status requested 07:30, no answer yet.",
  );
  // Another version, or another minute: a separate item, each in the single sentence.
  const apart = day(TODAY, [
    entry(TRANSNET, { tso_status: "sent", status_request: asked("2026-11-24T06:30:00Z") }),
    entry(TENNET, {
      version: 6,
      tso_status: "sent",
      status_request: asked("2026-11-24T06:30:00Z"),
    }),
    entry(AMPRION, { tso_status: "sent", status_request: asked("2026-11-24T06:45:00Z") }),
  ]);
  assert.deepEqual(
    items([apart]).filter((i) => i.code === "status_requested").map((i) => i.message),
    [
      "Today (Tue 24 Nov): TransnetBW (10YDE-ENBW-----N) has not answered schedule v7; status requested 07:30, no answer yet.",
      "Today (Tue 24 Nov): TenneT TSO (10YDE-EON------1) has not answered schedule v6; status requested 07:30, no answer yet.",
      "Today (Tue 24 Nov): Amprion (10YDE-RWENET---I) has not answered schedule v7; status requested 07:45, no answer yet.",
    ],
  );
});
