/**
 * The `cim_validation` part (issue 29; docs/fahrplan.md "Schema validation"): checking one CIM
 * schedule of 92, 96 and 100 positions against ENTSO-E's XSD, against rendering it, median of
 * `BENCH_CIM_ROUNDS` (200); plus the schema's one-off compile. Goal < 5 ms a document.
 * @module
 */
import { buildSchedule } from "../lib/fahrplan/document.ts";
import { renderCim } from "../lib/fahrplan/render.ts";
import { checkCim } from "../lib/fahrplan/cim_schema.ts";
import { scheduleInput } from "../tests/support/fahrplan.ts";
import { median, num, report, type Row, row } from "./common.ts";

const ROUNDS = num("BENCH_CIM_ROUNDS", 200);
const PART = "29 CIM validation";
const rows: Row[] = [];

// The one-off compile of the schedule schema (with the code lists), in a fresh process.
const t0 = performance.now();
checkCim(renderCim(buildSchedule(scheduleInput("2026-11-24"))));
const first = "first check of the process (compiles the schema, renders once)";
rows.push(row(PART, first, performance.now() - t0, "ms"));

for (const [day, n] of [["2027-03-28", 92], ["2026-11-24", 96], ["2026-10-25", 100]] as const) {
  const doc = buildSchedule(scheduleInput(day, 2));
  const xml = renderCim(doc);
  const check: number[] = [];
  const render: number[] = [];
  for (let i = 0; i < 20; i++) checkCim(xml); // warm-up
  for (let i = 0; i < ROUNDS; i++) {
    let t = performance.now();
    const c = checkCim(xml);
    check.push(performance.now() - t);
    if (c.problems.length) throw new Error(`the document of ${day} does not validate`);
    t = performance.now();
    renderCim(doc);
    render.push(performance.now() - t);
  }
  const bare = median(render) - median(check); // renderCim includes the check
  rows.push(row(PART, `check one CIM schedule, ${n} positions (median)`, median(check), "ms", {
    base: ["render without the check", bare],
    goal: ["< 5 ms", median(check) < 5],
  }));
}
report(rows);
