/**
 * The real German CIM answers (tests/fixtures/fahrplan: the ACK 7:0 and the CNF 5:0) against a
 * schedule this service sent (docs/fahrplan.md, "Schema validation"): re-addressed to our document
 * — only identifiers, parties and the day change, the structure stays the TSO's — each validates
 * against ENTSO-E's schema of its own namespace and is imported (acknowledged, then confirmed).
 * A copy with one element renamed goes to `rejected/` with the validator's reason beside it, says
 * so in one event, and changes nothing in the store.
 */
import assert from "node:assert/strict";
import { messageIdentification } from "../../lib/fahrplan/document.ts";
import { KEYS } from "../../lib/store/keys.ts";
import { call, storedEvents } from "../support/app.ts";
import { cimFilesRig, DAY, proc, step } from "../support/day_ahead_rig.ts";
import { assertCimValid, fixture, PARTIES } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";
import { fileNames, schedulesOf } from "../support/tso_answers.ts";

const ACK = "20241016_PPS_11Y0-0000-2483-X_10XDE-VE-FRISMK_086_ACK_2024-10-16T10-48-22Z.xml";
const CNF = "20241104_TPS_11X0-0000-0706-U_10XDE-EON-NETZ-C_007_CNF_2024-11-03T14-18-21Z.xml";
const AMPRION_TSO = "10XDE-RWENET---W";

/** The real ACK, answering version 1 of our schedule of DAY to Amprion. */
function ourAck(): string {
  return fixture(ACK)
    .replace("10XDE-VE-FRISMK", AMPRION_TSO)
    .replace("11Y0-0000-2483-X", PARTIES.sender)
    .replace(
      "241016_Y0-0000-2483-_XDE-VE-TRA",
      messageIdentification(DAY, PARTIES.sender, AMPRION_TSO),
    )
    .replace(">86<", ">1<");
}

/** The real CNF (5:0), confirming version 1 of our schedule of DAY to Amprion. */
function ourCnf(): string {
  return fixture(CNF)
    .replace("10XDE-EON-NETZ-C", AMPRION_TSO)
    .replace("11X0-0000-0706-U", PARTIES.sender)
    .replace("2024-11-03T23:00Z", "2026-11-22T23:00Z")
    .replace("2024-11-04T23:00Z", "2026-11-23T23:00Z")
    .replace(
      "241104_X0-0000-0706-_XDE-EON-NE",
      messageIdentification(DAY, PARTIES.sender, AMPRION_TSO),
    )
    .replace(">7<", ">1<")
    .replace("10YDE-EON------1", AREAS.amprion);
}

Deno.test("real CIM answers validate and are imported; a renamed element is rejected with the reason, nothing changed", async () => {
  const r = await cimFilesRig();
  const inbox = r.inbox;
  const importNow = async () =>
    (await call(`${r.s.url}/v1/schedule-responses/import`, { method: "POST", headers: proc }))
      .body as { files: { file: string; outcome: string; reason?: string }[] };
  const status = async () =>
    (await r.s.kv.get(KEYS.tsoStatus(DAY, AREAS.amprion))).value as Record<string, unknown>;
  try {
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    // What went out is valid CIM, as the TSO will check it.
    const sent = (await fileNames(r.outbox)).filter((f) => f.includes("_TPS_"));
    assert.ok(sent.length >= 1);
    for (const f of sent) await assertCimValid(await Deno.readTextFile(`${r.outbox}/${f}`), f);

    await Deno.mkdir(inbox, { recursive: true });
    const ack = ourAck();
    assert.equal(await assertCimValid(ack), "iec62325-451-1-acknowledgement_v7_0.xsd");
    await Deno.writeTextFile(`${inbox}/a_ACK.xml`, ack);
    assert.deepEqual((await importNow()).files.map((f) => f.outcome), ["imported"]);
    assert.equal((await schedulesOf(r.s.url, DAY))[AREAS.amprion].tso_status, "acknowledged");

    // A CNF with <mRID> renamed: not a confirmation; rejected, the reason beside it.
    const before = await status();
    const eventsBefore = (await storedEvents(r.s.kv)).length;
    const renamed = ourCnf().replace(/<mRID>([^<]*)<\/mRID>/, "<mRId>$1</mRId>");
    await Deno.writeTextFile(`${inbox}/b_CNF_renamed.xml`, renamed);
    const refused = (await importNow()).files;
    assert.deepEqual(refused.map((f) => f.outcome), ["rejected"]);
    const sentence =
      /Not a TSO answer: the CIM document does not validate against ENTSO-E's schema iec62325-451-2-confirmation_v5_0\.xsd: line 3: element mRId: This element is not expected\. Expected is \( mRID \)/;
    assert.match(refused[0].reason!, sentence);
    assert.match(
      await Deno.readTextFile(`${inbox}/rejected/b_CNF_renamed.xml.reason.txt`),
      sentence,
    );
    assert.deepEqual(await status(), before);
    const told = (await storedEvents(r.s.kv)).slice(eventsBefore);
    assert.deepEqual(told.map((e) => e.kind).filter((k) => k !== "api_call"), [
      "schedule_answer_rejected",
    ]);
    assert.match(
      String(told[0].message),
      /The file b_CNF_renamed\.xml in the inbox .* was not imported: Not a TSO answer: the CIM document does not validate/,
    );

    // The real CNF, re-addressed: valid, imported, confirmed.
    const cnf = ourCnf();
    assert.equal(await assertCimValid(cnf), "iec62325-451-2-confirmation_v5_0.xsd");
    await Deno.writeTextFile(`${inbox}/c_CNF.xml`, cnf);
    assert.deepEqual((await importNow()).files.map((f) => f.outcome), ["imported"]);
    assert.equal((await schedulesOf(r.s.url, DAY))[AREAS.amprion].tso_status, "confirmed");
  } finally {
    await r.close();
  }
});
