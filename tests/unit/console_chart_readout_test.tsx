/**
 * The console on a phone, without a browser: TSO names by EIC, the chart's readout of one
 * quarter-hour, the chart drawn at its box's width (labels at their CSS size, the axis title
 * clear of the top value), the key and pointer arithmetic behind tap and arrow keys, the
 * missing-forecast wording and distinct ESS/CIM download names.
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { ChartReadout } from "../../components/ChartReadout.tsx";
import { missingEnergyText, missingForecastText } from "../../components/DayRow.tsx";
import {
  labelEveryHours,
  PositionChart,
  quarterHourAt,
  stepFor,
} from "../../components/PositionChart.tsx";
import { downloadName } from "../../components/ScheduleList.tsx";
import { TSO_OF_CONTROL_AREA } from "../../lib/fahrplan/parties.ts";
import { TSO_NAME_OF_CONTROL_AREA, tsoName } from "../../lib/fahrplan/tso_names.ts";
import type { OpenPosition } from "../../lib/console/types.ts";

Deno.test("tsoName: the four German TSOs by control area EIC and by TSO EIC; nothing else", () => {
  const expected: [string, string, string][] = [
    ["10YDE-VE-------2", "10XDE-VE-TRANSMK", "50Hertz"],
    ["10YDE-RWENET---I", "10XDE-RWENET---W", "Amprion"],
    ["10YDE-EON------1", "10XDE-EON-NETZ-C", "TenneT TSO"],
    ["10YDE-ENBW-----N", "10XDE-ENBW--TNGX", "TransnetBW"],
  ];
  for (const [area, tso, name] of expected) {
    assert.equal(tsoName(area), name, area);
    assert.equal(tsoName(tso), name, tso);
    assert.equal(TSO_OF_CONTROL_AREA[area], tso, "the same pairing as the schedules use");
  }
  assert.equal(tsoName(" 10xde-rwenet---w "), "Amprion", "case and blanks do not matter");
  assert.equal(Object.keys(TSO_NAME_OF_CONTROL_AREA).length, 4);
  for (const other of ["10XAT-APG------Z", "11XDE-EXAMPLE--H", "", "10YDE-RWENET---W"]) {
    assert.equal(tsoName(other), undefined, `no guess for ${JSON.stringify(other)}`);
  }
});

Deno.test("ChartReadout: a hint before a tap; then the quarter-hour, each area with its TSO and MW, and the total", () => {
  const hint = renderToString(<ChartReadout at={null} id="r" />);
  assert.match(hint, /class="chart-readout muted" id="r" aria-live="polite"/);
  assert.match(
    hint,
    /Tap or drag along the chart, use ‹ previous · next ›, or focus it and use ← →/,
  );

  const html = renderToString(
    <ChartReadout
      at={{
        from: "14:15",
        to: "14:30",
        values: [
          { area: "10YDE-RWENET---I", mw: 1234.56, series: 0 },
          { area: "10YDE-EON------1", mw: -0.25, series: 1 },
          { area: "10YXX-<b>X</b>--1", mw: NaN, series: 7 },
        ],
      }}
      locale="en"
    />,
  );
  const text = html.replace(/<[^>]+>/g, "").replace(/\u00a0/g, " ");
  assert.match(text, /^14:15–14:30/);
  // The areas written as their total is (docs/console.md, "Numbers"): they add up on screen.
  assert.match(text, /10YDE-RWENET---IAmprion 1,234.56 MW/);
  assert.match(text, /10YDE-EON------1TenneT TSO -0.25 MW/);
  assert.match(text, /10YXX-&lt;b>X&lt;\/b>--1 no value/, "an unknown area: EIC only, escaped");
  assert.match(text, /total of the areas with a value 1,234.31 MW/);
  assert.match(html, /class="swatch s1"/);
  assert.match(html, /class="swatch s1"[^]*class="swatch s1"/, "series 7 wraps to colour s1");

  const one = renderToString(
    <ChartReadout
      at={{ from: "00:00", to: "00:15", values: [{ area: "10YDE-VE-------2", mw: 5, series: 0 }] }}
    />,
  );
  assert.match(one, /50Hertz/);
  assert.doesNotMatch(one, /total/, "one area: no total");
});

const qh = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    start: new Date(Date.parse("2025-06-01T22:00:00Z") + i * 900_000).toISOString(),
    local: `${String(Math.floor(i / 4)).padStart(2, "0")}:${String((i % 4) * 15).padStart(2, "0")}`,
    local_iso: "",
  }));
const position = (areas: Record<string, number[]>): OpenPosition => ({
  delivery_day: "2025-06-02",
  version: 3,
  stale: false,
  computed_at: "2025-06-01T10:00:00.000Z",
  unit: "MW",
  quarter_hours: qh(96),
  areas,
});

Deno.test("PositionChart: drawn at the box's width, labels 11 px apart from the title; focusable with a readout", () => {
  const pos = position({ "10YDE-RWENET---I": qh(96).map((_, i) => i * 10) });
  const phone = renderToString(<PositionChart position={pos} width={358} />);
  assert.match(phone, /viewBox="0 0 358 220" width="358" height="220"/);
  // A 290 px plot: a time label every 6 h (every 3 h would be 36 px apart).
  const times = [...phone.matchAll(/>(\d{2}:\d{2})<\/text>/g)].map((m) => m[1]);
  assert.deepEqual(times, ["00:00", "06:00", "12:00", "18:00"]);
  const wide = renderToString(<PositionChart position={pos} width={1200} />);
  assert.match(wide, /viewBox="0 0 1200 240"/);
  assert.equal([...wide.matchAll(/>(\d{2}:00)<\/text>/g)].length, 8, "every 3 h");
  // The axis title sits above the plot; the top value label below the plot's top edge.
  const title = /<text class="axis-label" x="4" y="(\d+)"/.exec(wide);
  assert.ok(title, wide);
  const tops = [...wide.matchAll(/<text x="50" y="([\d.]+)" text-anchor="end">/g)].map((m) =>
    Number(m[1])
  );
  const topValue = Math.min(...tops);
  assert.ok(
    topValue - 11 >= Number(title[1]) + 3,
    `title at ${title[1]}, top value at ${topValue}`,
  );
  // Keyboard and readout wiring; the legend names the TSO.
  assert.match(wide, /class="chart-plot" tabindex="0" role="group"/);
  assert.match(wide, /aria-describedby="readout-2025-06-02"/);
  assert.match(wide, /id="readout-2025-06-02" aria-live="polite"/);
  assert.match(wide, /10YDE-RWENET---I<\/span><span class="tso-name">Amprion<\/span>/);
  assert.match(wide, /aggregate version 3/);
  assert.doesNotMatch(wide, /style=/);
});

Deno.test("PositionChart: the quarter-hour under a tap and after each key", () => {
  // Plot from x = 56 to width − 12: 96 quarter-hours in 288 px at width 356.
  assert.equal(quarterHourAt(56, 356, 96), 0);
  assert.equal(quarterHourAt(56 + 3 * 10 + 1, 356, 96), 10);
  assert.equal(quarterHourAt(10, 356, 96), 0, "left of the plot: the first");
  assert.equal(quarterHourAt(400, 356, 96), 95, "right of the plot: the last");
  assert.equal(quarterHourAt(56 + 287, 356, 92), 91, "a 92-quarter-hour day");
  assert.equal(stepFor("ArrowRight", null, 96), 0);
  assert.equal(stepFor("ArrowLeft", null, 96), 95);
  assert.equal(stepFor("ArrowRight", 5, 96), 6);
  assert.equal(stepFor("ArrowLeft", 0, 96), 0, "stops at the first");
  assert.equal(stepFor("ArrowRight", 95, 96), 95, "stops at the last");
  assert.equal(stepFor("PageDown", 10, 96), 14, "an hour on");
  assert.equal(stepFor("PageUp", 2, 96), 0);
  assert.equal(stepFor("Home", 50, 100), 0);
  assert.equal(stepFor("End", 3, 100), 99);
  assert.equal(stepFor("a", 3, 96), null, "other keys are left alone");
  assert.equal(stepFor("Tab", 3, 96), null);
  assert.equal(labelEveryHours(352), 3);
  assert.equal(labelEveryHours(351), 6);
});

Deno.test("missingForecastText: counts market locations of the day in words", () => {
  assert.equal(
    missingForecastText({ market_locations: 20, share: 0.8333 }),
    "20 of 24 market locations without forecast",
  );
  assert.equal(
    missingForecastText({ market_locations: 1, share: 0.3333 }),
    "1 of 3 market locations without forecast",
  );
  assert.equal(
    missingForecastText({ market_locations: 1, share: 1 }),
    "1 of 1 market location without forecast",
  );
  assert.equal(
    missingForecastText({ market_locations: 2, share: 0 }),
    "2 market locations without forecast",
    "no share: no invented total",
  );
  // The energy share is a badge of its own: the count alone can hide most of the day's energy.
  const w = { energy_unknown_locations: 0 };
  assert.equal(missingEnergyText({ ...w, energy_share: 0.75 }), "75 % of the energy");
  assert.equal(
    missingEnergyText({ energy_share: 0.75, energy_unknown_locations: 3 }),
    "≥ 75 % of the energy",
  );
  assert.equal(
    missingEnergyText({ energy_share: null, energy_unknown_locations: 20 }),
    "energy share unknown",
  );
  assert.equal(missingEnergyText({}), null, "a warning without energy figures: no badge");
});

Deno.test("downloadName: ESS and CIM of one schedule get distinct names", () => {
  const cd = 'attachment; filename="20261127_TPS_11X0-1111-0123-N_10XDE-RWENET---W_001.xml"';
  const ess = downloadName(cd, "2026-11-27", "10YDE-RWENET---I", "ess");
  const cim = downloadName(cd, "2026-11-27", "10YDE-RWENET---I", "cim");
  assert.equal(ess, "20261127_TPS_11X0-1111-0123-N_10XDE-RWENET---W_001_ESS.xml");
  assert.equal(cim, "20261127_TPS_11X0-1111-0123-N_10XDE-RWENET---W_001_CIM.xml");
  assert.equal(
    downloadName('attachment; filename="x_002_CIM.xml"', "d", "a", "cim"),
    "x_002_CIM.xml",
    "a name that already says the format is kept",
  );
  assert.equal(
    downloadName(null, "2026-11-27", "10YDE-EON------1", "ess"),
    "2026-11-27_10YDE-EON------1_ESS.xml",
  );
});
