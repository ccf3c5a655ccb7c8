/**
 * Both TSO simulators check like a TSO (docs/fahrplan.md, "Schema validation"): a CIM schedule
 * that ENTSO-E's schema refuses is answered with a negative acknowledgement (A02) quoting the
 * validator — the files simulator with a CIM ACK that itself validates, the market-platform
 * simulator with the state `rejected` — and a valid one is acknowledged. So no test of ours can
 * pass a document a TSO would refuse.
 */
import assert from "node:assert/strict";
import { startTsoSimulator } from "../../dev/tso_simulator.ts";
import { startSimulator } from "../../dev/market_platform_simulator.ts";
import { buildSchedule } from "../../lib/fahrplan/document.ts";
import { renderCim } from "../../lib/fahrplan/render.ts";
import { parseAnswer } from "../../lib/fahrplan/answers.ts";
import { assertCimValid, scheduleInput } from "../support/fahrplan.ts";

const good = () => renderCim(buildSchedule(scheduleInput("2026-11-24")));
const bad = () => good().replaceAll("measurement_Unit.name", "measure_Unit.name");

Deno.test("files TSO simulator: a schema-invalid CIM schedule gets a CIM ACK A02 with the validator's words", async () => {
  const outbox = await Deno.makeTempDir();
  const inbox = await Deno.makeTempDir();
  const tsos = startTsoSimulator({ outbox, inbox, pollMs: 0 });
  try {
    await Deno.writeTextFile(`${outbox}/20261124_TPS_A_B_001.xml`, bad());
    await Deno.writeTextFile(`${outbox}/20261124_TPS_A_C_001.xml`, good());
    await tsos.pump();
    const answers = [...Deno.readDirSync(inbox)].map((f) => f.name).sort();
    const ack = (base: string) =>
      Deno.readTextFileSync(`${inbox}/${answers.find((a) => a.startsWith(`${base}_ACK_`))}`);
    for (const name of answers) await assertCimValid(Deno.readTextFileSync(`${inbox}/${name}`));
    const refused = parseAnswer(ack("20261124_TPS_A_B_001"));
    assert.equal(refused.accepted, false);
    assert.equal(refused.reason_code, "A02");
    assert.match(
      refused.reason_text!,
      /^the document does not validate against ENTSO-E's schema iec62325-451-2-schedule_v5_2\.xsd: line \d+: element measure_Unit\.name: This element is not expected/,
    );
    assert.equal(parseAnswer(ack("20261124_TPS_A_C_001")).accepted, true);
    assert.ok(answers.some((a) => a.startsWith("20261124_TPS_A_C_001_CNF_")), answers.join());
    assert.ok(!answers.some((a) => a.startsWith("20261124_TPS_A_B_001_CNF_")), answers.join());
  } finally {
    await tsos.close();
    await Deno.remove(outbox, { recursive: true });
    await Deno.remove(inbox, { recursive: true });
  }
});

Deno.test("market-platform simulator: a schema-invalid CIM schedule is rejected (A02) with the validator's words", async () => {
  const sim = await startSimulator();
  const client = Deno.createHttpClient({ caCerts: [sim.caCert] });
  try {
    const post = async (xml: string, key: string) => {
      const res = await fetch(`${sim.url}/schedules`, {
        method: "POST",
        client,
        headers: {
          authorization: sim.apiKey,
          "idempotency-key": key,
          "content-type": "application/xml",
        },
        body: xml,
      });
      const body = await res.json();
      assert.equal(res.status, 201);
      const state = await fetch(`${sim.url}/schedules/${body.submission_id}`, {
        client,
        headers: { authorization: sim.apiKey },
      });
      return await state.json();
    };
    const refused = await post(bad(), "k-bad");
    assert.equal(refused.state, "rejected");
    assert.equal(refused.reason_code, "A02");
    assert.match(refused.reason_text, /element measure_Unit\.name: This element is not expected/);
    assert.equal((await post(good(), "k-good")).state, "acknowledged");
  } finally {
    client.close();
    await sim.close();
  }
});
