/**
 * The answers the TSO simulators write (docs/fahrplan.md, docs/intraday.md), in the format of the
 * schedule they answer: ESS 2.3 (`AcknowledgementMessage`, `ConfirmationReport`, `AnomalyReport`,
 * shaped like the real samples in tests/fixtures/fahrplan) or CIM (`Acknowledgement_MarketDocument`
 * 7:0 and `Confirmation_MarketDocument` 5:0 like the real German samples, `AnomalyReport_MarketDocument`
 * 5:2 like tests/fixtures/fahrplan/built_CIM_ANO_*, with one time series naming the BRP). Every CIM
 * answer written here is checked against ENTSO-E's schema before it is written, so a simulator
 * never hands the service a document a TSO would not send.
 * @module
 */
import { checkCim, describeProblems } from "../lib/fahrplan/cim_schema.ts";
import { buildXml } from "../lib/fahrplan/xml_builder.ts";

const v = (value: string | number) => ({ "@_v": String(value) });
const eic = (value: string) => ({ "@_v": value, "@_codingScheme": "A01" });
const mrid = (value: string) => ({ "#text": value, "@_codingScheme": "A01" });

/** What an answer is about: the schedule it answers, as the simulator read it. */
export interface Answered {
  format: "ess" | "cim";
  /** The schedule's identification (ESS `MessageIdentification`, CIM `mRID`). */
  id: string;
  version: string;
  /** The TSO (receiver of the schedule, sender of the answer). */
  tso: string;
  /** The BRP (sender of the schedule). */
  sender: string;
  /** The day's interval, `start/end` in UTC minutes (`""` when unknown). */
  interval: string;
  /** Control area EIC of the schedule, when known. */
  area: string | null;
  /** CIM: the schedule's `createdDateTime`. */
  createdAt?: string;
}

/** Kind of answer and its reason. */
export type AnswerKind =
  | { kind: "ack"; accepted: true }
  | { kind: "ack"; accepted: false; why: string }
  | { kind: "cnf" }
  | { kind: "ano" };

/** Longest CIM reason text (`ReasonText_String`, 512 characters). */
const TEXT_MAX = 512;

/**
 * The answer's XML text.
 * @param stamp creation time, UTC seconds (`YYYY-MM-DDTHH:MM:SSZ`)
 * @param serial makes the answer's identification unique within the simulator
 * @throws {Error} when a CIM answer would not validate (a simulator fault, named)
 */
export function answerXml(a: Answered, answer: AnswerKind, stamp: string, serial: number): string {
  const code = answer.kind === "ack" ? answer.accepted ? "ACK" : "NAK" : answer.kind.toUpperCase();
  const answerId = `${stamp.slice(0, 10).replaceAll("-", "")}-${a.tso}-${code}-${serial}`;
  const root = a.format === "cim"
    ? cim(a, answer, stamp, answerId)
    : ess(a, answer, stamp, answerId);
  const xml = buildXml(root);
  if (a.format === "cim") {
    const check = checkCim(xml);
    if (check.problems.length) {
      throw new Error(`the simulator wrote an invalid ${code}: ${describeProblems(check)}`);
    }
  }
  return xml;
}

function reason(answer: AnswerKind): { code: string; text: string } {
  if (answer.kind === "ack") {
    return answer.accepted
      ? { code: "A01", text: "Message fully accepted" }
      : { code: "A02", text: answer.why.slice(0, TEXT_MAX) };
  }
  return answer.kind === "cnf"
    ? { code: "A06", text: "Schedule global position accepted" }
    : { code: "A28", text: "counterparty time series differs" };
}

function ess(a: Answered, answer: AnswerKind, stamp: string, answerId: string) {
  const header = {
    "@_DtdVersion": "2",
    "@_DtdRelease": "3",
    MessageIdentification: v(answerId),
    MessageDateTime: v(stamp),
    SenderIdentification: eic(a.tso),
    SenderRole: v("A04"),
    ReceiverIdentification: eic(a.sender),
    ReceiverRole: v("A08"),
  };
  const r = reason(answer);
  if (answer.kind === "ack") {
    return {
      AcknowledgementMessage: {
        ...header,
        ReceivingMessageIdentification: v(a.id),
        ReceivingMessageVersion: v(a.version),
        Reason: { ReasonCode: v(r.code), ReasonText: v(r.text) },
      },
    };
  }
  if (answer.kind === "ano") {
    return {
      AnomalyReport: {
        ...header,
        ScheduleTimeInterval: v(a.interval),
        TimeSeriesAnomaly: {
          SendersTimeSeriesIdentification: v("TS-1"),
          SendersTimeSeriesVersion: v(a.version),
          Reason: { ReasonCode: v(r.code), ReasonText: v(r.text) },
        },
      },
    };
  }
  return {
    ConfirmationReport: {
      ...header,
      MessageType: v("A07"),
      ScheduleTimeInterval: v(a.interval),
      ConfirmedMessageIdentification: v(a.id),
      ConfirmedMessageVersion: v(a.version),
      Reason: { ReasonCode: v(r.code) },
    },
  };
}

const NS = "urn:iec62325.351:tc57wg16:";

function cim(a: Answered, answer: AnswerKind, stamp: string, answerId: string) {
  const r = reason(answer);
  const parties = {
    "sender_MarketParticipant.mRID": mrid(a.tso),
    "sender_MarketParticipant.marketRole.type": "A04",
    "receiver_MarketParticipant.mRID": mrid(a.sender),
    "receiver_MarketParticipant.marketRole.type": "A08",
  };
  const [start, end] = a.interval.split("/");
  if (answer.kind === "ack") {
    return {
      Acknowledgement_MarketDocument: {
        "@_xmlns": `${NS}451-1:acknowledgementdocument:7:0`,
        mRID: answerId,
        createdDateTime: stamp,
        ...parties,
        "received_MarketDocument.mRID": a.id,
        "received_MarketDocument.revisionNumber": a.version,
        "received_MarketDocument.type": "A01",
        "received_MarketDocument.createdDateTime": a.createdAt,
        Reason: { code: r.code, text: r.text },
      },
    };
  }
  if (answer.kind === "ano") {
    return {
      AnomalyReport_MarketDocument: {
        "@_xmlns": `${NS}451-2:anomalydocument:5:2`,
        mRID: answerId,
        createdDateTime: stamp,
        ...parties,
        "schedule_Time_Period.timeInterval": { start, end },
        "domain.mRID": a.area ? mrid(a.area) : undefined,
        Anomaly_MarketDocument: {
          "marketParticipant.mRID": mrid(a.sender),
          mRID: a.id,
          revisionNumber: a.version,
          TimeSeries: {
            mRID: "TS-1",
            version: a.version,
            businessType: "A06",
            product: "8716867000016",
            objectAggregation: "A01",
            "in_Domain.mRID": a.area ? mrid(a.area) : undefined,
            "out_Domain.mRID": a.area ? mrid(a.area) : undefined,
            "in_MarketParticipant.mRID": mrid(a.sender),
            "out_MarketParticipant.mRID": mrid(a.sender),
            "measurement_Unit.name": "MAW",
            curveType: "A01",
            Period: {
              timeInterval: { start, end },
              resolution: "PT15M",
              Point: { position: "1", quantity: "0" },
            },
            Reason: { code: r.code, text: r.text },
          },
        },
      },
    };
  }
  return {
    Confirmation_MarketDocument: {
      "@_xmlns": `${NS}451-2:confirmationdocument:5:0`,
      mRID: answerId,
      type: "A09",
      createdDateTime: stamp,
      ...parties,
      "schedule_Period.timeInterval": { start, end },
      "confirmed_MarketDocument.mRID": a.id,
      "confirmed_MarketDocument.revisionNumber": a.version,
      "domain.mRID": a.area ? mrid(a.area) : undefined,
      Reason: { code: r.code, text: r.text },
    },
  };
}
