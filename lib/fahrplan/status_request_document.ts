/**
 * The status request (SRQ) a BRP sends when a TSO's answer is overdue (docs/fahrplan.md, "Status
 * requests"): "send me your current answer for this delivery day". Shaped like the real samples in
 * tests/fixtures/fahrplan (`*_SRQ_*.xml`):
 *
 * - ESS: `StatusRequest` of the ESS request DTD 1.0 (`request-xml.dtd`), `MessageType` A59,
 *   `ProcessType` A17, `RequestedTimeInterval` = the delivery day in UTC minutes;
 * - CIM: `StatusRequest_MarketDocument` (IEC 62325-451-5, namespace version 4:1), type A59, the
 *   same content as `AttributeInstanceComponent`s (subject party, its role, the day's interval).
 *
 * Written with fast-xml-parser's builder and checked before it leaves like every schedule
 * (`./outbound_check.ts`). File name by the BDEW convention: `YYYYMMDD_SRQ_<sender>_<receiver>.xml`.
 * @module
 */
import { buildXml } from "./xml_builder.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import { MAX_ID_LENGTH, utcMinutes } from "./document.ts";
import { assertValidOutbound } from "./outbound_check.ts";

/** Namespace of the CIM status request written (IEC 62325-451-5, version 4:1). */
export const CIM_STATUS_REQUEST_NS = "urn:iec62325.351:tc57wg16:451-5:statusrequestdocument:4:1";

/** DOCTYPE line of an ESS status request (the request DTD of the implementation guide). */
export const ESS_SRQ_DOCTYPE =
  '<!DOCTYPE StatusRequest SYSTEM "../schedulev2r3/dtd/request-xml.dtd">';

/** What a status request asks. */
export interface StatusRequestInput {
  /** Delivery day, local date `YYYY-MM-DD` (Europe/Berlin). */
  day: string;
  /** The BRP's party EIC (sender, role A08; also the subject party). */
  sender: string;
  /** The TSO's EIC (receiver, role A04). */
  receiver: string;
  /** Creation instant, ms since the epoch. */
  createdAtMs: number;
}

const v = (value: string) => ({ "@_v": value });

/** `YYYYMMDD_SRQ_<sender EIC>_<receiver EIC>.xml` (BDEW; the samples' names). */
export function statusRequestFileName(r: StatusRequestInput): string {
  return `${r.day.replaceAll("-", "")}_SRQ_${r.sender}_${r.receiver}.xml`;
}

/** The request's identification: day, `SRQ`, both EICs without their prefix; ≤ 35 characters. */
function identification(r: StatusRequestInput): string {
  return `${r.day.replaceAll("-", "")}_SRQ_${r.sender.slice(3)}${r.receiver.slice(3)}`
    .slice(0, MAX_ID_LENGTH);
}

/**
 * The status request as text in `format`.
 * @throws {InvalidDeliveryDayError} when `day` is not a date
 * @throws {DocumentSchemaInvalid} when the schema refuses it (CIM always; ESS with `ESS_DTD_DIR`)
 */
export function renderStatusRequest(r: StatusRequestInput, format: "ess" | "cim"): string {
  const d = deliveryDay(r.day);
  const interval = `${utcMinutes(d.start)}/${utcMinutes(d.end)}`;
  const created = new Date(r.createdAtMs).toISOString().replace(/\.\d{3}Z$/, "Z");
  const name = statusRequestFileName(r);
  if (format === "ess") {
    const text = buildXml({
      StatusRequest: {
        "@_DtdVersion": "1",
        "@_DtdRelease": "0",
        MessageIdentification: v(identification(r)),
        MessageType: v("A59"),
        ProcessType: v("A17"),
        SenderIdentification: { ...v(r.sender), "@_codingScheme": "A01" },
        SenderRole: v("A08"),
        ReceiverIdentification: { ...v(r.receiver), "@_codingScheme": "A01" },
        ReceiverRole: v("A04"),
        MessageDateTime: v(created),
        RequestedTimeInterval: v(interval),
      },
    }, ESS_SRQ_DOCTYPE);
    return assertValidOutbound(text, "ess", name);
  }
  const part = (attribute: string, attributeValue: string) => ({ attribute, attributeValue });
  const xml = buildXml({
    StatusRequest_MarketDocument: {
      "@_xmlns": CIM_STATUS_REQUEST_NS,
      mRID: identification(r),
      type: "A59",
      "sender_MarketParticipant.mRID": { "#text": r.sender, "@_codingScheme": "A01" },
      "sender_MarketParticipant.marketRole.type": "A08",
      "receiver_MarketParticipant.mRID": { "#text": r.receiver, "@_codingScheme": "A01" },
      "receiver_MarketParticipant.marketRole.type": "A04",
      createdDateTime: created,
      AttributeInstanceComponent: [
        part("subject_MarketParticipant.mRID", r.sender),
        part("subject_MarketParticipant.marketRole.type", "A08"),
        part("schedule_Time_Period.timeInterval", interval),
      ],
    },
  });
  return assertValidOutbound(xml, "cim", name);
}
