/**
 * Schedules to the TSO (docs/fahrplan.md; lib/fahrplan/): the ESS 2.3 and
 * CIM documents of a 96-, a 92- and a 100-quarter-hour day read back (fast-xml-parser) to the
 * right parties, interval, positions and quantities; their element structure is the real
 * samples'; the identification, file name and receivers follow the rules.
 */
import assert from "node:assert/strict";
import { XMLParser } from "fast-xml-parser";
import {
  buildSchedule,
  MAX_ID_LENGTH,
  messageIdentification,
  scheduleFileName,
} from "../../lib/fahrplan/document.ts";
import { TSO_OF_CONTROL_AREA, tsoOf } from "../../lib/fahrplan/parties.ts";
import { CIM_SCHEDULE_NS, renderCim, renderEss } from "../../lib/fahrplan/render.ts";
import {
  elementPaths,
  fixture,
  openPosition,
  PARTIES,
  scheduleInput,
} from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";

const DAYS = [
  { day: "2026-11-24", n: 96, start: "2026-11-23T23:00Z", end: "2026-11-24T23:00Z" },
  { day: "2027-03-28", n: 92, start: "2027-03-27T23:00Z", end: "2027-03-28T22:00Z" },
  { day: "2026-10-25", n: 100, start: "2026-10-24T22:00Z", end: "2026-10-25T23:00Z" },
];
const AMPRION_TSO = "10XDE-RWENET---W";
const ESS_SAMPLE = "20241022_TPS_11X0-1111-0762-I_10XDE-AOE-HTCC-C_001.xml";
const CIM_SAMPLE = "20241008_TPS_10XEN-VE-FRISMK_11X0-1111-0619-M_002.xml";

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  isArray: (name) => ["ScheduleTimeSeries", "TimeSeries", "Interval", "Point"].includes(name),
});

/** Expected purchase and sale, as written (3 decimals), per quarter-hour. */
function expected(n: number) {
  const mw = Array.from({ length: n }, (_, i) => Math.round(openPosition(i) * 1000) / 1000);
  return {
    purchase: mw.map((v) => Math.max(v, 0).toFixed(3)),
    sale: mw.map((v) => Math.max(-v, 0).toFixed(3)),
  };
}

for (const { day, n, start, end } of DAYS) {
  Deno.test(`ESS ScheduleMessage of ${day} (${n} quarter-hours) reads back`, () => {
    const xml = renderEss(buildSchedule(scheduleInput(day, 3)));
    assert.match(
      xml,
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<!DOCTYPE ScheduleMessage SYSTEM /,
    );
    const m = parser.parse(xml).ScheduleMessage;
    const v = (node: { "@_v": string }) => node["@_v"];
    assert.equal(m["@_DtdVersion"], "2");
    assert.equal(m["@_DtdRelease"], "3");
    assert.equal(m["@xmlns"], undefined);
    assert.equal(
      v(m.MessageIdentification),
      messageIdentification(day, PARTIES.sender, AMPRION_TSO),
    );
    assert.equal(v(m.MessageVersion), "3");
    assert.deepEqual(
      [v(m.MessageType), v(m.ProcessType), v(m.ScheduleClassificationType)],
      ["A01", "A17", "A01"],
    );
    assert.deepEqual([v(m.SenderIdentification), v(m.SenderRole)], [PARTIES.sender, "A08"]);
    assert.deepEqual([v(m.ReceiverIdentification), v(m.ReceiverRole)], [AMPRION_TSO, "A04"]);
    assert.equal(m.SenderIdentification["@_codingScheme"], "A01");
    assert.equal(v(m.MessageDateTime), "2027-03-27T09:30:15Z");
    assert.equal(v(m.ScheduleTimeInterval), `${start}/${end}`);
    const want = expected(n);
    const [buy, sell] = m.ScheduleTimeSeries;
    assert.equal(m.ScheduleTimeSeries.length, 2);
    for (
      const [ts, inParty, outParty, qty] of [
        [buy, PARTIES.balancingGroup, PARTIES.counterparty, want.purchase],
        [sell, PARTIES.counterparty, PARTIES.balancingGroup, want.sale],
      ] as const
    ) {
      assert.deepEqual(
        [v(ts.BusinessType), v(ts.Product), v(ts.ObjectAggregation), v(ts.MeasurementUnit)],
        ["A02", "8716867000016", "A01", "MAW"],
      );
      assert.deepEqual([v(ts.InArea), v(ts.OutArea)], [AREAS.amprion, AREAS.amprion]);
      assert.deepEqual([v(ts.InParty), v(ts.OutParty)], [inParty, outParty]);
      assert.equal(v(ts.SendersTimeSeriesVersion), "3");
      assert.ok(v(ts.SendersTimeSeriesIdentification).length <= MAX_ID_LENGTH);
      assert.equal(v(ts.Period.TimeInterval), `${start}/${end}`);
      assert.equal(v(ts.Period.Resolution), "PT15M");
      const intervals = ts.Period.Interval as { Pos: { "@_v": string }; Qty: { "@_v": string } }[];
      assert.deepEqual(
        intervals.map((i) => v(i.Pos)),
        Array.from({ length: n }, (_, i) => `${i + 1}`),
      );
      assert.deepEqual(intervals.map((i) => v(i.Qty)), qty);
      for (const i of intervals) assert.match(v(i.Qty), /^\d+\.\d{3}$/);
    }
  });

  Deno.test(`CIM Schedule_MarketDocument of ${day} (${n} quarter-hours) reads back`, () => {
    const xml = renderCim(buildSchedule(scheduleInput(day, 3)));
    const d = parser.parse(xml).Schedule_MarketDocument;
    const t = (node: { "#text": string }) => node["#text"];
    assert.equal(d["@_xmlns"], CIM_SCHEDULE_NS);
    assert.equal(d.mRID, messageIdentification(day, PARTIES.sender, AMPRION_TSO));
    assert.deepEqual(
      [d.revisionNumber, d.type, d["process.processType"], d["process.classificationType"]],
      ["3", "A01", "A17", "A01"],
    );
    assert.equal(t(d["sender_MarketParticipant.mRID"]), PARTIES.sender);
    assert.equal(d["sender_MarketParticipant.mRID"]["@_codingScheme"], "A01");
    assert.equal(d["sender_MarketParticipant.marketRole.type"], "A08");
    assert.equal(t(d["receiver_MarketParticipant.mRID"]), AMPRION_TSO);
    assert.equal(d["receiver_MarketParticipant.marketRole.type"], "A04");
    assert.equal(d.createdDateTime, "2027-03-27T09:30:15Z");
    assert.deepEqual(d["schedule_Time_Period.timeInterval"], { start, end });
    assert.equal(t(d["domain.mRID"]), AREAS.amprion);
    assert.equal(t(d["subject_MarketParticipant.mRID"]), PARTIES.balancingGroup);
    const want = expected(n);
    assert.equal(d.TimeSeries.length, 2);
    const [buy, sell] = d.TimeSeries;
    for (
      const [ts, inParty, outParty, qty] of [
        [buy, PARTIES.balancingGroup, PARTIES.counterparty, want.purchase],
        [sell, PARTIES.counterparty, PARTIES.balancingGroup, want.sale],
      ] as const
    ) {
      assert.deepEqual(
        [
          ts.businessType,
          ts.product,
          ts.objectAggregation,
          ts["measurement_Unit.name"],
          ts.version,
        ],
        ["A02", "8716867000016", "A01", "MAW", "3"],
      );
      assert.deepEqual([t(ts["in_Domain.mRID"]), t(ts["out_Domain.mRID"])], [
        AREAS.amprion,
        AREAS.amprion,
      ]);
      assert.deepEqual(
        [t(ts["in_MarketParticipant.mRID"]), t(ts["out_MarketParticipant.mRID"])],
        [inParty, outParty],
      );
      assert.deepEqual(ts.Period.timeInterval, { start, end });
      assert.equal(ts.Period.resolution, "PT15M");
      const points = ts.Period.Point as { position: string; quantity: string }[];
      assert.deepEqual(
        points.map((p) => p.position),
        Array.from({ length: n }, (_, i) => `${i + 1}`),
      );
      assert.deepEqual(points.map((p) => p.quantity), qty);
    }
  });
}

Deno.test("purchase carries the positive part, sale the magnitude of the negative part", () => {
  const doc = buildSchedule({
    ...scheduleInput("2026-11-24"),
    mw: [2.5, -1.23456, 0, -0, 0.0004, -0.0004, ...Array(90).fill(1)],
  });
  assert.deepEqual(doc.purchase.slice(0, 6), [2.5, 0, 0, 0, 0, 0]);
  assert.deepEqual(doc.sale.slice(0, 6), [0, 1.235, 0, 0, 0, 0]);
  for (const q of [...doc.purchase, ...doc.sale]) assert.ok(!Object.is(q, -0));
});

Deno.test("ESS: the element structure (paths and attributes, in order) is the real sample's", () => {
  const rendered = elementPaths(renderEss(buildSchedule(scheduleInput("2026-11-24"))));
  assert.deepEqual(rendered, elementPaths(fixture(ESS_SAMPLE)));
  // The TSO's ConfirmationReport echoes time series with the same children.
  const confirmed = elementPaths(
    fixture("20241113_TPS_11XSWVIERNHEIMVR_10XDE-EON-NETZ-C_001_CNF_2024-11-13T09-00-00Z.xml"),
  ).filter((p) => p.includes("/TimeSeriesConfirmation/")).map((p) =>
    p.split("/TimeSeriesConfirmation/")[1]
  );
  const ours = rendered.filter((p) => p.includes("/ScheduleTimeSeries/")).map((p) =>
    p.split("/ScheduleTimeSeries/")[1]
  );
  assert.deepEqual(ours, confirmed);
});

Deno.test("CIM: the header is the real sample's, element for element; time series per IEC 62325-451-2", () => {
  const rendered = elementPaths(renderCim(buildSchedule(scheduleInput("2026-11-24"))));
  const header = rendered.filter((p) => !p.startsWith("Schedule_MarketDocument/TimeSeries"));
  assert.deepEqual(header, elementPaths(fixture(CIM_SAMPLE)));
  // The sample carries no time series; these are the standard's TimeSeries elements.
  const series = rendered.filter((p) => p.startsWith("Schedule_MarketDocument/TimeSeries"))
    .map((p) => p.replace("Schedule_MarketDocument/TimeSeries", "TS"));
  assert.deepEqual(series, [
    "TS",
    "TS/mRID",
    "TS/version",
    "TS/businessType",
    "TS/product",
    "TS/objectAggregation",
    "TS/in_Domain.mRID[codingScheme]",
    "TS/out_Domain.mRID[codingScheme]",
    "TS/in_MarketParticipant.mRID[codingScheme]",
    "TS/out_MarketParticipant.mRID[codingScheme]",
    "TS/measurement_Unit.name",
    "TS/Period",
    "TS/Period/timeInterval",
    "TS/Period/timeInterval/start",
    "TS/Period/timeInterval/end",
    "TS/Period/resolution",
    "TS/Period/Point",
    "TS/Period/Point/position",
    "TS/Period/Point/quantity",
  ]);
  // One namespace constant, the one of the sample.
  assert.match(fixture(CIM_SAMPLE), new RegExp(`xmlns="${CIM_SCHEDULE_NS}"`));
});

Deno.test("the rendered examples in tests/fixtures/fahrplan/rendered are what the renderer writes", () => {
  const doc = buildSchedule(scheduleInput("2027-03-28", 2));
  const base = `rendered/${scheduleFileName(doc).replace(".xml", "")}`;
  assert.equal(renderEss(doc), fixture(`${base}_ESS.xml`));
  assert.equal(renderCim(doc), fixture(`${base}_CIM.xml`));
});

Deno.test("message identification: stable per (day, sender, receiver), ≤ 35 characters", () => {
  const v1 = buildSchedule(scheduleInput("2027-03-28", 1));
  const v9 = buildSchedule(scheduleInput("2027-03-28", 9));
  assert.equal(v1.messageId, v9.messageId);
  assert.equal(v1.messageId, "20270328_TPS_0-1111-0123-NDE-RWENET");
  assert.ok(v1.messageId.length <= MAX_ID_LENGTH);
  assert.notEqual(buildSchedule(scheduleInput("2027-03-29")).messageId, v1.messageId);
  const tennet = buildSchedule({ ...scheduleInput("2027-03-28"), controlArea: AREAS.tennet });
  assert.notEqual(tennet.messageId, v1.messageId);
  // The pattern of the TSO answers' references.
  assert.equal(
    messageIdentification("2024-11-13", "11XSWVIERNHEIMVR", "10XDE-EON-NETZ-C"),
    "20241113_TPS_SWVIERNHEIMVRDE-EON-NE",
  );
});

Deno.test("BDEW file name: YYYYMMDD_TPS_<sender>_<receiver>_<version 3 digits>.xml", () => {
  assert.equal(
    scheduleFileName(buildSchedule(scheduleInput("2027-03-28", 2))),
    "20270328_TPS_11X0-1111-0123-N_10XDE-RWENET---W_002.xml",
  );
  assert.equal(
    scheduleFileName(buildSchedule(scheduleInput("2026-10-25", 123))),
    "20261025_TPS_11X0-1111-0123-N_10XDE-RWENET---W_123.xml",
  );
});

Deno.test("receivers: the TSO of each German control area, an override wins", () => {
  assert.deepEqual(
    Object.fromEntries(Object.values(AREAS).map((a) => [a, tsoOf(a)])),
    {
      "10YDE-RWENET---I": "10XDE-RWENET---W",
      "10YDE-EON------1": "10XDE-EON-NETZ-C",
      "10YDE-ENBW-----N": "10XDE-ENBW--TNGX",
      "10YDE-VE-------2": "10XDE-VE-TRANSMK",
    },
  );
  assert.ok(Object.isFrozen(TSO_OF_CONTROL_AREA));
  assert.equal(tsoOf(AREAS.tennet, { [AREAS.tennet]: "10XDE-AOE-HTCC-C" }), "10XDE-AOE-HTCC-C");
  assert.equal(tsoOf("10YAT-APG------L"), "");
  const doc = buildSchedule({
    ...scheduleInput("2026-11-24"),
    tsoOverrides: { [AREAS.amprion]: "10XDE-AOE-HTCC-C" },
  });
  assert.equal(doc.receiver, "10XDE-AOE-HTCC-C");
});
