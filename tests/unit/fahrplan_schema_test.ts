/**
 * ENTSO-E's CIM schemas (lib/fahrplan/cim_schema.ts, data/xsd/; docs/fahrplan.md "Schema
 * validation"): the files ship unmodified (checksums), every real CIM sample validates, what the
 * renderer writes validates on days of 92, 96 and 100 quarter-hours with frozen positions, and a
 * broken document of each kind is refused with the element named. The parser at the edge loads no
 * DTD or external entity and bounds entity expansion.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  checkCim,
  CIM_SCHEMAS,
  describeProblems,
  SCHEMA_DIR,
} from "../../lib/fahrplan/cim_schema.ts";
import { buildSchedule } from "../../lib/fahrplan/document.ts";
import { renderCim } from "../../lib/fahrplan/render.ts";
import { DocumentSchemaInvalid } from "../../lib/domain/errors.ts";
import { parseAnswer, UnreadableAnswer } from "../../lib/fahrplan/answers.ts";
import { assertCimValid, fixture, scheduleInput } from "../support/fahrplan.ts";

const CIM_ACK = "20241016_PPS_11Y0-0000-2483-X_10XDE-VE-FRISMK_086_ACK_2024-10-16T10-48-22Z.xml";
const CIM_CNF = "20241104_TPS_11X0-0000-0706-U_10XDE-EON-NETZ-C_007_CNF_2024-11-03T14-18-21Z.xml";
const CIM_SRQ = "20241104_SRQ_11X0-0000-0619-M_10XDE-VE-TRANSMK.xml";
const CIM_TPS = "20241008_TPS_10XEN-VE-FRISMK_11X0-1111-0619-M_002.xml";
const CIM_ANO = "built_CIM_ANO_20241106_10XDE-VE-TRANSMK.xml";

Deno.test("schemas: every file in data/xsd/entsoe-cim matches SHA256SUMS (never edited)", () => {
  const sums = Deno.readTextFileSync(new URL("SHA256SUMS", SCHEMA_DIR)).trim().split("\n");
  assert.ok(sums.length >= 19);
  const listed = new Set<string>();
  for (const line of sums) {
    const [sum, name] = line.split(/\s+\*?/);
    listed.add(name);
    const hash = createHash("sha256").update(Deno.readFileSync(new URL(name, SCHEMA_DIR)))
      .digest("hex");
    assert.equal(hash, sum, `${name} was changed`);
  }
  for (const e of Deno.readDirSync(SCHEMA_DIR)) {
    if (e.name.endsWith(".xsd")) assert.ok(listed.has(e.name), `${e.name} has no checksum`);
  }
});

Deno.test("schemas: each namespace of the table is the targetNamespace of its file", () => {
  for (const [ns, entry] of CIM_SCHEMAS) {
    const xsd = Deno.readTextFileSync(new URL(entry.file, SCHEMA_DIR));
    assert.match(xsd, new RegExp(`targetNamespace="${ns}"`), entry.file);
    assert.match(xsd, new RegExp(`<xs:element name="${entry.root}"`), entry.file);
  }
  assert.equal(CIM_SCHEMAS.size, 17);
});

Deno.test("schemas: every real CIM sample validates against the schema of its namespace", () => {
  const want: Record<string, string> = {
    [CIM_ACK]: "iec62325-451-1-acknowledgement_v7_0.xsd",
    [CIM_CNF]: "iec62325-451-2-confirmation_v5_0.xsd",
    [CIM_SRQ]: "iec62325-451-5-statusrequest_v4_0.xsd",
    [CIM_TPS]: "iec62325-451-2-schedule_v5_2.xsd",
    [CIM_ANO]: "iec62325-451-2-anomaly_v5_2.xsd",
  };
  for (const [file, schema] of Object.entries(want)) {
    const check = checkCim(fixture(file));
    assert.deepEqual(check.problems, [], file);
    assert.equal(check.schema, schema);
  }
});

for (const day of ["2027-03-28", "2026-11-24", "2026-10-25"]) {
  Deno.test(`schemas: the CIM schedule of ${day} validates, with frozen positions and v12`, async () => {
    const input = scheduleInput(day, 12);
    const frozen = { count: 8, reference: input.mw.slice(0, 8).map((v) => v + 1) };
    const xml = renderCim(buildSchedule({ ...input, frozen }));
    assert.equal(await assertCimValid(xml), "iec62325-451-2-schedule_v5_2.xsd");
  });
}

/** A valid schedule with one change applied to its text. */
function broken(change: (xml: string) => string): string {
  return change(renderCim(buildSchedule(scheduleInput("2026-11-24"))));
}

const BROKEN: [string, (xml: string) => string, RegExp][] = [
  [
    "the old element name measure_Unit.name",
    (x) => x.replaceAll("measurement_Unit.name", "measure_Unit.name"),
    /line \d+: element measure_Unit\.name: This element is not expected\. Expected is one of \(.*measurement_Unit\.name/,
  ],
  [
    "a time series without its Period",
    (x) => x.replace(/<Period>[\s\S]*?<\/Period>/, ""),
    /element TimeSeries: Missing child element\(s\)\. Expected is one of \( curveType, Period \)/,
  ],
  [
    "a quantity with a decimal comma",
    (x) => x.replace(/<quantity>(\d+)\.(\d+)<\/quantity>/, "<quantity>$1,$2</quantity>"),
    /element quantity: '\d+,\d+' is not a valid value of the atomic type 'xs:decimal'/,
  ],
];

for (const [what, change, message] of BROKEN) {
  Deno.test(`schemas: a schedule with ${what} is refused with the element named`, () => {
    const check = checkCim(broken(change));
    assert.ok(check.problems.length > 0);
    assert.match(describeProblems(check), message);
  });
}

Deno.test("schemas: the renderer never lets a refused document out (DocumentSchemaInvalid)", () => {
  // A creation time without seconds passes every structural rule of ours (document.ts); the
  // schema's ESMP_DateTime refuses it, and the renderer says so instead of returning the text.
  const doc = { ...buildSchedule(scheduleInput("2026-11-24")), createdAt: "2026-11-23T10:00Z" };
  const sent = () => renderCim(doc);
  assert.throws(sent, (err: Error) => {
    assert.ok(err instanceof DocumentSchemaInvalid);
    assert.equal(err.code, "ERR_SCHEMA_INVALID");
    assert.match(
      err.message,
      /^20261124_TPS_.*_001\.xml was not sent: it does not validate against ENTSO-E's schema iec62325-451-2-schedule_v5_2\.xsd: line \d+: element createdDateTime: '2026-11-23T10:00Z' is not a valid value/,
    );
    return true;
  });
});

/** A real answer with one element renamed (the reader must not take it as an answer). */
const RENAMED: [string, string, string][] = [
  [CIM_ACK, "<Reason>", "<Reasons>"],
  [CIM_CNF, "<mRID>", "<mRId>"],
];

for (const [file, from, to] of RENAMED) {
  Deno.test(`answers: ${file.slice(0, 30)}… with ${from} renamed is refused in words`, () => {
    const xml = fixture(file).replace(from, to).replace(
      from.replace("<", "</"),
      to.replace("<", "</"),
    );
    assert.throws(() => parseAnswer(xml), (err: Error) => {
      assert.ok(err instanceof UnreadableAnswer);
      assert.match(
        err.message,
        /does not validate against ENTSO-E's schema iec62325-451-\d-\w+_v\d_\d\.xsd: line \d+: element/,
      );
      return true;
    });
  });
}

Deno.test("answers: a CNF without its required mRID is not taken as a confirmation", () => {
  const xml = fixture(CIM_CNF).replace(/<mRID>[^<]*<\/mRID>/, "");
  assert.throws(
    () => parseAnswer(xml),
    /Missing child element|element .*: This element is not expected/,
  );
});

Deno.test("answers: a namespace version without a schema here is refused, not guessed", () => {
  const xml = fixture(CIM_ACK).replace(
    /acknowledgementdocument:7:0/,
    "acknowledgementdocument:6:0",
  );
  assert.throws(() => parseAnswer(xml), (err: Error) => {
    assert.match(
      err.message,
      /namespace urn:iec62325\.351:tc57wg16:451-1:acknowledgementdocument:6:0 of <Acknowledgement_MarketDocument> is not one this service has an ENTSO-E schema for \(known versions of Acknowledgement_MarketDocument: 7\.0, 8\.0, 8\.1, 9\.0\)/,
    );
    return true;
  });
});

Deno.test("answers: an external entity (XXE) is never loaded, a billion laughs never expanded", () => {
  const secret = Deno.makeTempFileSync();
  Deno.writeTextFileSync(secret, "TOP-SECRET-42");
  const ack = fixture(CIM_ACK);
  const xxe = ack.replace(
    /<\?xml[^>]*\?>/,
    `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file://${secret}">]>`,
  ).replace(/<text>[^<]*<\/text>/, "<text>&e;</text>");
  const lol = Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`)
    .join("");
  const laughs = ack.replace(
    /<\?xml[^>]*\?>/,
    `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY l0 "lol">${lol}]>`,
  ).replace(/<text>[^<]*<\/text>/, "<text>&l9;</text>");
  for (const xml of [xxe, laughs]) {
    const t0 = performance.now();
    const check = checkCim(xml);
    assert.ok(performance.now() - t0 < 1000);
    assert.equal(check.problems.length, 1);
    assert.match(check.problems[0].message, /declares a DTD/);
    assert.doesNotMatch(JSON.stringify(check), /TOP-SECRET/);
    assert.throws(() => parseAnswer(xml), (err: Error) => !/TOP-SECRET/.test(err.message));
  }
  Deno.removeSync(secret);
});

Deno.test("schemas: a status request without its interval component or with a wrong type is refused, element named", async () => {
  const { renderStatusRequest } = await import("../../lib/fahrplan/status_request_document.ts");
  const xml = renderStatusRequest({
    day: "2026-11-25",
    sender: "11X0-1111-0123-N",
    receiver: "10XDE-EON-NETZ-C",
    createdAtMs: Date.UTC(2026, 10, 24, 6, 30),
  }, "cim");
  assert.equal(await assertCimValid(xml), "iec62325-451-5-statusrequest_v4_1.xsd");
  const noParts = xml.replace(
    /<AttributeInstanceComponent>[\s\S]*<\/AttributeInstanceComponent>/,
    "",
  );
  assert.match(
    describeProblems(checkCim(noParts)),
    /statusrequest_v4_1\.xsd: line \d+: element StatusRequest_MarketDocument: Missing child element\(s\)\. Expected is \( AttributeInstanceComponent \)/,
  );
  const renamed = xml.replace("<type>A59</type>", "<messageType>A59</messageType>");
  assert.match(
    describeProblems(checkCim(renamed)),
    /element messageType: This element is not expected/,
  );
});
