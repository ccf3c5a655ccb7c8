/**
 * Console components rendered with preact-render-to-string: untrusted text stays text, local
 * time with the UTC instant, stale markers with their reason, the SVG chart, config fields
 * (runtime badge, write-only secrets, 422 message at the field), and the formatting helpers.
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { ConfigField } from "../../components/ConfigField.tsx";
import { DayRow, inputText } from "../../components/DayRow.tsx";
import { EventRow } from "../../components/EventRow.tsx";
import { PositionChart, ticks } from "../../components/PositionChart.tsx";
import { ScheduleList } from "../../components/ScheduleList.tsx";
import { failureText, StepCell } from "../../components/StepCell.tsx";
import { formatBytes, formatCountdown, formatLocal, formatUtc } from "../../lib/console/format.ts";
import type { DayOverview, FieldMeta, OpenPosition } from "../../lib/console/types.ts";

const TZ = "Europe/Berlin";
const XSS = "/v1/<img src=x onerror=window.__xss=1>";
const noop = () => {};

Deno.test("EventRow: path, message and caller with markup are escaped text", () => {
  const html = renderToString(
    <EventRow
      timeZone={TZ}
      event={{
        id: 7,
        ts: "2025-06-02T08:41:05Z",
        kind: "access_denied",
        level: "warning",
        message: `GET ${XSS} refused with 401`,
        path: XSS,
        status: 401,
        caller: "<b>mallory</b>",
      }}
    />,
  );
  assert.ok(!html.includes("<img"), html);
  assert.ok(!html.includes("<b>"), html);
  assert.match(html, /GET \/v1\/&lt;img src=x onerror=window.__xss=1>/);
  assert.match(html, /caller &lt;b>mallory&lt;\/b> · \/v1\/&lt;img/);
  assert.match(html, /class="ev lvl-warning" data-id="7" data-kind="access_denied"/);
  // Market time (Europe/Berlin) shown; the reader's own zone and UTC in the tooltip.
  assert.match(
    html,
    /<time datetime="2025-06-02T08:41:05Z" title="[^"]* your time · 2025-06-02 08:41:05 UTC">2025-06-02 10:41<\/time>/,
  );
  assert.match(html, />06-02 10:41<\/time>|>2025-06-02 10:41<\/time>/);
});

Deno.test("format: local time, UTC tooltip, countdown, sizes, MW", () => {
  const now = Date.parse("2025-06-02T12:00:00Z");
  assert.equal(formatLocal("2025-06-02T08:41:05Z", now, TZ), "10:41:05");
  assert.equal(formatLocal("2025-06-01T08:41:05Z", now, TZ), "06-01 10:41");
  assert.equal(formatLocal("2024-12-31T23:30:00Z", now, TZ), "01-01 00:30");
  assert.equal(formatLocal("2024-06-01T08:00:00Z", now, TZ), "2024-06-01 10:00");
  assert.equal(formatLocal("not a date", now, TZ), "not a date");
  assert.equal(formatUtc("2025-06-02T08:41:05.123Z"), "2025-06-02 08:41:05 UTC");
  assert.equal(formatCountdown(now + 2.5 * 3_600_000, now), "in 2 h 30 min");
  assert.equal(formatCountdown(now + 26 * 3_600_000, now), "in 1 d 2 h");
  assert.equal(formatCountdown(now + 65_000, now), "in 1 min 05 s");
  assert.equal(formatCountdown(now + 9_400, now), "in 9 s");
  assert.equal(formatCountdown(now - 2 * 3_600_000 - 600_000, now), "passed 2 h 10 min ago");
  assert.equal(formatBytes(8 * 1024 * 1024), "8 MiB");
  assert.equal(formatBytes(1536), "2 KiB");
});

Deno.test("StepCell: version, time, caller; stale marker with its reason", () => {
  assert.match(renderToString(<StepCell step={null} />), /—/);
  const html = renderToString(
    <StepCell
      timeZone={TZ}
      step={{
        version: 4,
        at: "2025-06-01T08:41:00Z",
        by: "orchestrator",
        stale: true,
        stale_reason: "newer forecast for 12 market locations at 10:41",
        detail: {},
      }}
    />,
  );
  assert.match(html, /v4/);
  assert.match(html, /orchestrator/);
  assert.match(html, /stale<\/span> <span class="stale-reason">newer forecast for 12 market/);
});

const day: DayOverview = {
  delivery_day: "2025-10-26",
  quarter_hours: 100,
  gate_closure: "2025-10-25T10:00:00Z",
  gate_closure_passed: true,
  input_version: 2,
  last_input: { at: "2025-10-25T07:00:00Z", by: "acme", market_locations: 1, source: "generated" },
  steps: { forecast: null, aggregated: null, published: null, submitted: null },
  totals: {},
  schedules: [],
  warnings: [],
  failures: { forecast: null, aggregated: null, published: null, submitted: null },
};

Deno.test("DayRow: DST badge, last input, manual steps; submit disabled after gate closure", () => {
  const html = renderToString(
    <table>
      <tbody>
        <DayRow
          day={day}
          selected
          onSelect={noop}
          busy={false}
          onAction={noop}
          timeZone={TZ}
          actions={[{ step: "aggregate", label: "Aggregate" }, {
            step: "submit",
            label: "Submit",
            confirm: true,
          }]}
        />
      </tbody>
    </table>,
  );
  assert.match(html, /100 QH/);
  assert.match(html, /1 market location · generated forecast by acme/);
  assert.match(html, /aria-label="Aggregate 2025-10-26"/);
  assert.match(html, /<button[^>]*disabled aria-label="Submit 2025-10-26"/);
  assert.match(html, /aria-pressed="true"/);
  assert.match(html, /class="selected"/);
});

Deno.test("DayRow: a master-data change reads as words", () => {
  const changed: DayOverview = {
    ...day,
    last_input: {
      at: "2025-10-25T07:00:00Z",
      by: "acme",
      market_locations: 3,
      source: "master_data",
    },
  };
  const html = renderToString(
    <table>
      <tbody>
        <DayRow
          day={changed}
          selected={false}
          onSelect={noop}
          busy={false}
          onAction={noop}
          timeZone={TZ}
          actions={[]}
        />
      </tbody>
    </table>,
  );
  assert.match(html, /3 market locations · master data by acme/);
});

Deno.test("PositionChart: one step line per area, axis labels, legend with min/max", () => {
  const qh = Array.from({ length: 96 }, (_, i) => ({
    start: new Date(Date.parse("2025-06-01T22:00:00Z") + i * 900_000).toISOString(),
    local: `${String(Math.floor(i / 4)).padStart(2, "0")}:${String((i % 4) * 15).padStart(2, "0")}`,
    local_iso: "",
  }));
  const pos: OpenPosition = {
    delivery_day: "2025-06-02",
    version: 3,
    stale: false,
    computed_at: "2025-06-01T10:00:00.000Z",
    unit: "MW",
    quarter_hours: qh,
    areas: {
      "10YDE-RWENET---I": qh.map((_, i) => i),
      "10YDE-EON------1": qh.map((_, i) => -i / 2),
    },
  };
  const html = renderToString(<PositionChart position={pos} locale="en" />)
    .replace(/&nbsp;|\u00a0/g, " ");
  assert.equal(html.match(/<polyline /g)?.length, 2);
  assert.equal(html.match(/<rect /g)?.length, 96);
  assert.match(html, />03:00<\/text>/);
  assert.match(html, /min -47.5 MW · max 0 MW/);
  assert.match(html, /MW \(consumption \+, generation −\)<\/text>/, "the axis says the sign rule");
  // Σ 0..95 MW × 0.25 h = 1,140 MWh bought; Σ 0..47.5 MW × 0.25 h = 570 MWh sold.
  assert.match(html, /purchase 1,140 MWh · sale 0 MWh ·\s*peak\s*(<!-- -->)?\s*95.0 MW/);
  assert.match(html, /purchase 0 MWh · sale 570 MWh ·\s*peak\s*(<!-- -->)?\s*-47.5 MW/);
  assert.doesNotMatch(html, /style=/);
  const first = /points="([^"]+)"/.exec(html)![1].split(" ");
  assert.equal(first.length, 2 * 96, "two points per quarter-hour: a step line");
  assert.deepEqual(ticks(0, 95), [0, 20, 40, 60, 80]);
  assert.deepEqual(ticks(-10, 10, 4), [-10, -5, 0, 5, 10]);
});

const meta = (name: string, kind: FieldMeta["kind"]): FieldMeta => ({
  name,
  kind,
  env: name.toUpperCase(),
  description: `about ${name}`,
});

Deno.test("ConfigField: runtime badge and Revert; secret shows set, never the value", () => {
  const runtime = renderToString(
    <ConfigField
      meta={meta("sftp_host", "text")}
      view={{
        value: "h.example",
        source: "runtime",
        secret: false,
        env: "SFTP_HOST",
        description: "",
      }}
      draft={undefined}
      errors={undefined}
      disabled={false}
      onDraft={noop}
      onRevert={noop}
    />,
  );
  assert.match(runtime, /badge badge-accent[^>]*>runtime</);
  assert.match(runtime, /Revert sftp_host to its environment value/);
  assert.match(runtime, /value="h.example"/);
  const secret = renderToString(
    <ConfigField
      meta={meta("sftp_password", "secret")}
      view={{
        value: "********",
        source: "env",
        secret: true,
        env: "SFTP_PASSWORD",
        description: "",
      }}
      draft={undefined}
      errors={undefined}
      disabled={false}
      onDraft={noop}
      onRevert={noop}
    />,
  );
  assert.match(secret, />set</);
  assert.match(secret, /type="password"/);
  assert.ok(!secret.includes("********"));
  assert.doesNotMatch(secret, />runtime</);
});

Deno.test("ConfigField: a 422 message sits in the field, linked for assistive technology", () => {
  const html = renderToString(
    <ConfigField
      meta={meta("home_control_area", "text")}
      view={{
        value: "10YDE-RWENET---I",
        source: "default",
        secret: false,
        env: "X",
        description: "",
      }}
      draft="10YDE-RWENET---J"
      errors={["not a valid EIC: <check> character should be I"]}
      disabled={false}
      onDraft={noop}
      onRevert={noop}
    />,
  );
  assert.match(html, /data-field="home_control_area"/);
  assert.match(html, /aria-describedby="cfg-home_control_area-help cfg-home_control_area-err"/);
  assert.match(html, /aria-invalid="true"/);
  assert.match(html, /id="cfg-home_control_area-err" role="alert">not a valid EIC: &lt;check>/);
  assert.match(html, />edited</);
});

Deno.test("StepCell: a failure is shown in words, in Berlin time, above the step and its staleness", () => {
  const failure = {
    at: "2026-11-25T09:41:00Z",
    message: "publish failed: sFTP 127.0.0.1:22 refused the connection",
    attempts: 12,
    next_attempt_at: "2026-11-25T09:42:00Z",
  };
  assert.equal(
    failureText(failure),
    "publish failed 10:41 Berlin: sFTP 127.0.0.1:22 refused the connection · 12 attempts · next 10:42",
  );
  assert.equal(
    failureText({ ...failure, attempts: 1, next_attempt_at: null }),
    "publish failed 10:41 Berlin: sFTP 127.0.0.1:22 refused the connection · 1 attempt",
  );
  // Never succeeded: the failure alone, not "not run yet".
  const alone = renderToString(<StepCell step={null} failure={failure} />);
  assert.match(alone, /role="alert"/);
  assert.match(alone, /12 attempts/);
  assert.doesNotMatch(alone, /not run yet/);
  // Succeeded before, stale now, failing since: the failure comes first.
  const html = renderToString(
    <StepCell
      failure={failure}
      timeZone="Europe/Berlin"
      step={{
        version: 3,
        at: "2026-11-25T08:00:00Z",
        by: "orchestrator",
        stale: true,
        stale_reason: "newer forecast for 2 market locations at 10:30",
        detail: {},
      }}
    />,
  );
  assert.ok(html.indexOf("failed 10:41 Berlin") < html.indexOf("stale-reason"), html);
  assert.match(html, /class="step step-failed"/);
});

Deno.test("ScheduleList: per area TSO, version, status with the reason in words; downloads name the area", () => {
  assert.equal(
    renderToString(<ScheduleList day={{ ...day, schedules: [] }} onDownload={noop} />),
    "",
  );
  const at = "2025-10-25T09:00:00Z";
  const file = "f.xml";
  const schedules: DayOverview["schedules"] = [
    {
      control_area: "10YDE-RWENET---I",
      receiver: "10XDE-RWENET---W",
      version: 1,
      file,
      tso_status: "confirmed",
      reason_code: null,
      reason_text: null,
      at,
    },
    {
      control_area: "10YDE-EON------1",
      receiver: "10XDE-EON-NETZ-C",
      version: 2,
      file,
      tso_status: "anomaly",
      reason_code: "A28",
      reason_text: "<b>Counterparty</b> schedule differs",
      at,
    },
  ];
  const html = renderToString(
    <ScheduleList day={{ ...day, schedules }} onDownload={noop} />,
  );
  // The anomaly is the summary, in red; versions are named as the schedule's.
  assert.match(html, /class="tso-summary tso-error">· anomaly in 1 of 2 areas · 1 confirmed/);
  assert.match(
    html,
    /10YDE-EON------1<\/span><span class="tso-name">TenneT TSO<\/span> → <span class="muted">TSO<\/span> <span class="mono">10XDE-EON-NETZ-C<\/span>/,
  );
  assert.match(html, />schedule v2<\/span>/);
  assert.match(html, /anomaly/);
  assert.match(html, /&lt;b>Counterparty&lt;\/b> schedule differs/);
  assert.match(html, /aria-label="CIM document 10YDE-RWENET---I"/);
  assert.doesNotMatch(html, /<b>Counterparty/);
});

Deno.test("input cell: the caller is not repeated where it is the source (no 'customer · customer')", () => {
  const li = { at: "2026-11-24T18:00:00Z", source: "customer" as const, market_locations: 20 };
  assert.equal(inputText({ ...li, by: "customer" }), "20 market locations · customer forecast");
  assert.equal(inputText({ ...li, by: "acme" }), "20 market locations · customer forecast by acme");
});

Deno.test("ScheduleList: a status request is told in the row; 'Request status' only where an answer can still come", () => {
  const base = {
    receiver: "10XDE-EON-NETZ-C",
    version: 1,
    file: "f.xml",
    reason_code: null,
    reason_text: null,
    at: "2026-11-24T06:00:00Z",
  };
  const schedules: DayOverview["schedules"] = [
    {
      ...base,
      control_area: "10YDE-EON------1",
      tso_status: "sent",
      status_request: {
        at: "2026-11-24T06:30:00Z",
        file: "20261125_SRQ_x.xml",
        state: "ack",
        answered: false,
      },
    },
    { ...base, control_area: "10YDE-RWENET---I", tso_status: "confirmed" },
  ];
  const asked: string[] = [];
  const html = renderToString(
    <ScheduleList
      day={{ ...day, schedules }}
      onDownload={noop}
      onStatusRequest={(a) => asked.push(a)}
    />,
  );
  assert.match(html, /status requested 07:30, no answer yet/);
  assert.match(html, /aria-label="Request status from the TSO of 10YDE-EON------1"/);
  assert.doesNotMatch(html, /Request status from the TSO of 10YDE-RWENET---I/);
});
