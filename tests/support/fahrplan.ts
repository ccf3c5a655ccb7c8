/**
 * Test data for schedules (Fahrplan): made-up parties with valid EIC check characters, an open
 * position that changes sign, the fixture folder, and element paths of an XML document for
 * comparing structures.
 * @module
 */
import { XMLParser } from "fast-xml-parser";
import { quarterHourCount } from "../../lib/domain/delivery_day.ts";
import type { ScheduleInput } from "../../lib/fahrplan/document.ts";
import { AREAS } from "./portfolio.ts";

/** Folder of the real sample files and the rendered examples. */
export const FIXTURES = new URL("../fixtures/fahrplan/", import.meta.url);

/** Reads a fixture by file name. */
export function fixture(name: string): string {
  return Deno.readTextFileSync(new URL(name, FIXTURES));
}

/** Made-up parties (valid EIC check characters, not registered codes). */
export const PARTIES = {
  sender: "11X0-1111-0123-N",
  balancingGroup: "11X0-0000-0123-O",
  counterparty: "11XEPEX-SPOT-DEJ",
} as const;

/** Environment of a service on the `files` channel with ESS documents from {@link PARTIES}. */
export const FILES_CHANNEL_ENV = {
  SENDER_EIC: PARTIES.sender,
  BALANCING_GROUP: PARTIES.balancingGroup,
  COUNTERPARTY_EIC: PARTIES.counterparty,
  SCHEDULE_CHANNEL: "files",
  SCHEDULE_FORMAT: "ess",
} as const;

/** Open position in MW for quarter-hour `i`: alternates sign, with more than 3 decimals. */
export function openPosition(i: number): number {
  return i % 3 === 0 ? -(i / 7 + 0.12345) : i * 1.5 + 0.0004;
}

/** A schedule input for `day` in the Amprion area, version `messageVersion`. */
export function scheduleInput(day: string, messageVersion = 1): ScheduleInput {
  return {
    day,
    aggregateVersion: 7,
    controlArea: AREAS.amprion,
    mw: Array.from({ length: quarterHourCount(day) }, (_, i) => openPosition(i)),
    senderEic: PARTIES.sender,
    balancingGroup: PARTIES.balancingGroup,
    counterpartyEic: PARTIES.counterparty,
    messageVersion,
    createdAtMs: Date.UTC(2027, 2, 27, 9, 30, 15),
  };
}

const ordered = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "",
  preserveOrder: true,
  removeNSPrefix: true,
});

/**
 * Every element path of a document in first-seen order, without repeats, each with its
 * attribute names: `ScheduleMessage/SenderIdentification[codingScheme,v]`.
 */
export function elementPaths(xml: string): string[] {
  const seen = new Set<string>();
  // deno-lint-ignore no-explicit-any
  const walk = (nodes: any[], prefix: string) => {
    for (const node of nodes) {
      const name = Object.keys(node).find((k) => k !== ":@");
      if (!name || name.startsWith("?") || name.startsWith("#")) continue;
      const attrs = Object.keys(node[":@"] ?? {}).filter((a) => a !== "xmlns").sort();
      const path = `${prefix}${name}`;
      seen.add(attrs.length ? `${path}[${attrs.join(",")}]` : path);
      walk(node[name], `${path}/`);
    }
  };
  walk(ordered.parse(xml.replace(/^\uFEFF/, "")), "");
  return [...seen];
}

/**
 * Fails unless `xml` is a CIM document that ENTSO-E's schema of its namespace accepts
 * (lib/fahrplan/cim_schema.ts, the schemas of data/xsd/entsoe-cim/): every CIM document a test
 * writes or reads back goes through this, so no test passes a document a TSO would refuse.
 * @returns the schema file it was checked against
 */
export async function assertCimValid(xml: string, what = "the document"): Promise<string> {
  const { checkCim, describeProblems } = await import("../../lib/fahrplan/cim_schema.ts");
  const check = checkCim(xml);
  if (check.problems.length || !check.schema) {
    throw new Error(`${what} is not schema-valid CIM: ${describeProblems(check, 10)}`);
  }
  return check.schema;
}
