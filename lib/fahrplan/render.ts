/**
 * Writes a {@link ScheduleDocument} as XML (docs/fahrplan.md), built with
 * fast-xml-parser's `XMLBuilder` from an element tree, never by string concatenation:
 *
 * - ESS 2.3 `ScheduleMessage` (ENTSO-E Scheduling System implementation guide 2.3, DTD style, no
 *   namespace, values in `v` attributes), element order as the DTD and the sample
 *   tests/fixtures/fahrplan/20241022_TPS_…_001.xml;
 * - CIM `Schedule_MarketDocument` (IEC 62325-451-2) in the namespace {@link CIM_SCHEDULE_NS}, the
 *   header as the sample tests/fixtures/fahrplan/20241008_TPS_…_002.xml, the time series as the
 *   standard's `TimeSeries`/`Period`/`Point`.
 *
 * Quantities are MW with 3 decimals (`MAW`), positions 1…92/96/100 at PT15M, the interval in UTC.
 * @module
 */
import { buildXml } from "./xml_builder.ts";
import {
  assertValidSchedule,
  MAX_ID_LENGTH,
  type ScheduleDocument,
  scheduleFileName,
} from "./document.ts";
import { assertValidOutbound } from "./outbound_check.ts";

/** Namespace of the CIM schedule document (IEC 62325-451-2, version 5.2, as the sample shows). */
export const CIM_SCHEDULE_NS = "urn:iec62325.351:tc57wg16:451-2:scheduledocument:5:2";

/** DOCTYPE line of an ESS 2.3 schedule message (the DTD of the implementation guide). */
export const ESS_DOCTYPE =
  '<!DOCTYPE ScheduleMessage SYSTEM "../schedulev2r3/dtd/schedule-xml.dtd">';

/** Codes of the day-ahead schedule (ESS 2.3 / IEC 62325-451-2 code lists). */
export const SCHEDULE_CODES = {
  messageType: "A01",
  processType: "A17",
  classificationType: "A01",
  senderRole: "A08",
  receiverRole: "A04",
  businessType: "A02",
  product: "8716867000016",
  objectAggregation: "A01",
  unit: "MAW",
  resolution: "PT15M",
  codingScheme: "A01",
} as const;

/** A time series of one direction. */
interface Series {
  id: string;
  inParty: string;
  outParty: string;
  mw: number[];
}

/** Purchase (balancing group ← counterparty) and sale (the reverse), with stable ids ≤ 35. */
function seriesOf(doc: ScheduleDocument): Series[] {
  const id = (dir: string) =>
    `${doc.balancingGroup}-${doc.counterparty}-${dir}`.slice(0, MAX_ID_LENGTH);
  return [
    { id: id("P"), inParty: doc.balancingGroup, outParty: doc.counterparty, mw: doc.purchase },
    { id: id("S"), inParty: doc.counterparty, outParty: doc.balancingGroup, mw: doc.sale },
  ];
}

const v = (value: string | number) => ({ "@_v": String(value) });
const eic = (value: string) => ({ "@_v": value, "@_codingScheme": SCHEDULE_CODES.codingScheme });
const mrid = (value: string) => ({ "#text": value, "@_codingScheme": SCHEDULE_CODES.codingScheme });

/**
 * The schedule as an ESS 2.3 `ScheduleMessage` (UTF-8 text with DOCTYPE).
 * @throws {ScheduleInvalid} when the document may not leave (every problem named)
 * @throws {DocumentSchemaInvalid} when `ESS_DTD_DIR` is set and the TSOs' DTD refuses it
 */
export function renderEss(doc: ScheduleDocument): string {
  assertValidSchedule(doc);
  const c = SCHEDULE_CODES;
  const interval = `${doc.interval.start}/${doc.interval.end}`;
  const message = {
    "@_DtdVersion": "2",
    "@_DtdRelease": "3",
    MessageIdentification: v(doc.messageId),
    MessageVersion: v(doc.messageVersion),
    MessageType: v(c.messageType),
    ProcessType: v(c.processType),
    ScheduleClassificationType: v(c.classificationType),
    SenderIdentification: eic(doc.sender),
    SenderRole: v(c.senderRole),
    ReceiverIdentification: eic(doc.receiver),
    ReceiverRole: v(c.receiverRole),
    MessageDateTime: v(doc.createdAt),
    ScheduleTimeInterval: v(interval),
    ScheduleTimeSeries: seriesOf(doc).map((s) => ({
      SendersTimeSeriesIdentification: v(s.id),
      SendersTimeSeriesVersion: v(doc.messageVersion),
      BusinessType: v(c.businessType),
      Product: v(c.product),
      ObjectAggregation: v(c.objectAggregation),
      InArea: eic(doc.controlArea),
      OutArea: eic(doc.controlArea),
      InParty: eic(s.inParty),
      OutParty: eic(s.outParty),
      MeasurementUnit: v(c.unit),
      Period: {
        TimeInterval: v(interval),
        Resolution: v(c.resolution),
        Interval: s.mw.map((q, i) => ({ Pos: v(i + 1), Qty: v(q.toFixed(3)) })),
      },
    })),
  };
  const text = buildXml({ ScheduleMessage: message }, ESS_DOCTYPE);
  return assertValidOutbound(text, "ess", scheduleFileName(doc));
}

/**
 * The schedule as a CIM `Schedule_MarketDocument` in {@link CIM_SCHEDULE_NS}.
 * @throws {ScheduleInvalid} when the document may not leave (every problem named)
 * @throws {DocumentSchemaInvalid} when ENTSO-E's schema of {@link CIM_SCHEDULE_NS} refuses it
 *   (docs/fahrplan.md "Schema validation")
 */
export function renderCim(doc: ScheduleDocument): string {
  assertValidSchedule(doc);
  const c = SCHEDULE_CODES;
  const interval = { start: doc.interval.start, end: doc.interval.end };
  const document = {
    "@_xmlns": CIM_SCHEDULE_NS,
    mRID: doc.messageId,
    revisionNumber: String(doc.messageVersion),
    type: c.messageType,
    "process.processType": c.processType,
    "process.classificationType": c.classificationType,
    "sender_MarketParticipant.mRID": mrid(doc.sender),
    "sender_MarketParticipant.marketRole.type": c.senderRole,
    "receiver_MarketParticipant.mRID": mrid(doc.receiver),
    "receiver_MarketParticipant.marketRole.type": c.receiverRole,
    createdDateTime: doc.createdAt,
    "schedule_Time_Period.timeInterval": interval,
    "domain.mRID": mrid(doc.controlArea),
    "subject_MarketParticipant.mRID": mrid(doc.balancingGroup),
    "subject_MarketParticipant.marketRole.type": c.senderRole,
    TimeSeries: seriesOf(doc).map((s) => ({
      mRID: s.id,
      version: String(doc.messageVersion),
      businessType: c.businessType,
      product: c.product,
      objectAggregation: c.objectAggregation,
      "in_Domain.mRID": mrid(doc.controlArea),
      "out_Domain.mRID": mrid(doc.controlArea),
      "in_MarketParticipant.mRID": mrid(s.inParty),
      "out_MarketParticipant.mRID": mrid(s.outParty),
      "measurement_Unit.name": c.unit,
      Period: {
        timeInterval: interval,
        resolution: c.resolution,
        Point: s.mw.map((q, i) => ({ position: String(i + 1), quantity: q.toFixed(3) })),
      },
    })),
  };
  const xml = buildXml({ Schedule_MarketDocument: document });
  return assertValidOutbound(xml, "cim", scheduleFileName(doc));
}

/** The document in `format`: ESS 2.3 ({@link renderEss}) or CIM ({@link renderCim}). */
export function renderSchedule(doc: ScheduleDocument, format: "ess" | "cim"): string {
  return format === "cim" ? renderCim(doc) : renderEss(doc);
}
