/**
 * The intraday parts of a day's row, schedule list and chart as rendered (docs/console.md,
 * "Intraday"): the phase line in the row, the manual Submit enabled after gate closure while a
 * quarter-hour is open and disabled once none is, the locked deviation below the chart, and the
 * TSO's schedule as a dashed line per area.
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { DayRow } from "../../components/DayRow.tsx";
import { PositionChart } from "../../components/PositionChart.tsx";
import { ScheduleList } from "../../components/ScheduleList.tsx";
import { emptyDay, overview } from "../../lib/pipeline/day_state.ts";
import type { DayOverview, OpenPosition } from "../../lib/console/types.ts";
import { intradayEntry } from "../support/intraday_entry.ts";

const NOW = Date.parse("2026-11-24T09:14:00Z"); // 10:14 Berlin on the day
const noop = () => {};
const day: DayOverview = {
  ...overview(emptyDay("2026-11-24"), NOW, "12:00"),
  tso_deadline: "2026-11-23T13:30:00Z",
  schedules_open_until: "2026-11-24T22:30:00Z",
  schedules: [
    intradayEntry("10YDE-VE-------2", "f.xml", {
      receiver: "10XDE-VE-TRANSMK",
      locked_deviation_mwh: 2.4,
    }),
  ],
};
const row = (d: DayOverview, nowMs: number) =>
  renderToString(
    <table>
      <tbody>
        <DayRow
          day={d}
          selected={false}
          onSelect={noop}
          busy={false}
          onAction={noop}
          nowMs={nowMs}
          actions={[{ step: "submit", label: "Submit", confirm: true }]}
        />
      </tbody>
    </table>,
  );

Deno.test("row: phase line; Submit enabled after gate closure while a quarter-hour is open", () => {
  assert.equal(day.gate_closure_passed, true);
  const open = row(day, NOW);
  assert.match(open, /confirmed: schedule v7 in 1 of 1 areas/);
  assert.match(open, /intraday v7 · frozen until 10:30 Berlin</);
  assert.doesNotMatch(open, /1 of 1 confirmed/, "the count once, in the TSO summary");
  assert.ok(!/disabled aria-label="Submit 2026-11-24"/.test(open), "Submit enabled");
  const closed = row(day, Date.parse("2026-11-24T22:31:00Z"));
  assert.match(closed, /disabled aria-label="Submit 2026-11-24"/);
});

Deno.test("schedule list: phase line and the locked deviation in words", () => {
  const html = renderToString(
    <ScheduleList day={day} onDownload={noop} loadVersions={() => new Promise(noop)} />,
  );
  assert.match(html, /intraday v7 · frozen until 10:30 Berlin</);
  assert.match(html, /2\.40(&nbsp;|\u00a0)MWh can no longer be scheduled away in 50Hertz/);
  assert.match(html, /<summary>Version history<\/summary>/);
});

Deno.test("chart: the TSO's schedule dashed beside the open position, per area", () => {
  const position = {
    delivery_day: "2026-11-24",
    version: 3,
    quarter_hours: Array.from({ length: 4 }, (_, i) => ({
      start: new Date(Date.parse("2026-11-23T23:00:00Z") + i * 900_000).toISOString(),
      local: `00:${String(i * 15).padStart(2, "0")}`,
    })),
    areas: { "10YDE-VE-------2": [4.4, 4.4, 4.4, 4.4] },
  } as unknown as OpenPosition;
  const without = renderToString(<PositionChart position={position} width={600} />);
  assert.ok(!without.includes("tso-series"));
  const html = renderToString(
    <PositionChart
      position={position}
      width={600}
      tso={{ "10YDE-VE-------2": { version: 7, mw: [4, 4, 4.4, 4.4] } }}
    />,
  );
  assert.equal(html.match(/class="series tso-series s0"/g)?.length, 1);
  assert.match(html, /the TSO has schedule v7/);
});
