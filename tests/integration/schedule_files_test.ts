/**
 * Submission over the `files` channel (docs/fahrplan.md): one
 * ESS or CIM document per active control area, by the BDEW file name, in the publish target (here
 * the local outbox) for the TSO's gateway; no market platform is asked. A newer aggregate gives
 * version 2 of every document, with the same message identification. Half-right configurations
 * are refused in words; a document that would be invalid writes nothing.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, the outbox on disk, the
 * market-platform simulator (to show it is not asked), the injected clock.
 */
import assert from "node:assert/strict";
import { XMLParser } from "fast-xml-parser";
import { call } from "../support/app.ts";
import {
  BEFORE_GC,
  DAY,
  dayView,
  portfolio,
  postForecast,
  proc,
  rig,
  step,
} from "../support/day_ahead_rig.ts";
import { PARTIES } from "../support/fahrplan.ts";

const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" });
const TSOS = ["10XDE-ENBW--TNGX", "10XDE-EON-NETZ-C", "10XDE-RWENET---W", "10XDE-VE-TRANSMK"];

async function outboxFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) if (e.name.includes("_TPS_")) out.push(e.name);
  return out.sort();
}

Deno.test("files channel: one document per control area in the outbox, versions 1 then 2, the platform not asked", async () => {
  const r = await rig(BEFORE_GC, {
    SENDER_EIC: PARTIES.sender,
    BALANCING_GROUP: PARTIES.balancingGroup,
    COUNTERPARTY_EIC: PARTIES.counterparty,
    SCHEDULE_CHANNEL: "files",
    SCHEDULE_FORMAT: "ess",
  });
  try {
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    const sub = await step(r.s, DAY, "submit");
    assert.equal(sub.status, 200, JSON.stringify(sub.body));
    const body = sub.body as { channel: string; documents: { file: string; receiver: string }[] };
    assert.equal(body.channel, "files");
    assert.deepEqual(body.documents.map((d) => d.receiver).sort(), TSOS);
    const files = await outboxFiles(r.outbox);
    assert.deepEqual(files, TSOS.map((t) => `20261123_TPS_${PARTIES.sender}_${t}_001.xml`).sort());
    const amprion = xml.parse(
      await Deno.readTextFile(
        `${r.outbox}/20261123_TPS_${PARTIES.sender}_10XDE-RWENET---W_001.xml`,
      ),
    ).ScheduleMessage;
    assert.equal(amprion.MessageVersion["@v"], "1");
    assert.equal(r.sim.requests(), 0, "no market platform is asked");
    const view = await dayView(r.s, DAY);
    assert.equal(view.steps.submitted?.detail.channel, "files");

    // A newer aggregate: version 2 of every document, same message identification.
    await postForecast(r.s, 1, DAY, Array(96).fill(150));
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    assert.equal((await step(r.s, DAY, "submit")).status, 200);
    const v2 = xml.parse(
      await Deno.readTextFile(
        `${r.outbox}/20261123_TPS_${PARTIES.sender}_10XDE-RWENET---W_002.xml`,
      ),
    ).ScheduleMessage;
    assert.equal(v2.MessageVersion["@v"], "2");
    assert.equal(v2.MessageIdentification["@v"], amprion.MessageIdentification["@v"]);
    assert.equal((await outboxFiles(r.outbox)).length, 8);
  } finally {
    await r.close();
  }
});

Deno.test("files channel: half-right configurations and missing parties are refused in words; nothing written", async () => {
  const r = await rig(BEFORE_GC, {
    SENDER_EIC: PARTIES.sender,
    BALANCING_GROUP: PARTIES.balancingGroup,
  });
  try {
    const put = (body: unknown) =>
      call(`${r.s.url}/v1/console/config`, {
        method: "PUT",
        headers: proc,
        body: JSON.stringify(body),
      });
    const json = await put({ schedule_channel: "files" });
    assert.equal(json.status, 422);
    assert.match(
      JSON.stringify(json.body),
      /schedule_channel is files: choose the document format, ess or cim/,
    );
    // Documents may also go to the market platform (schedule_platform_test.ts).
    assert.equal((await put({ schedule_format: "cim" })).status, 200);
    assert.equal((await put({ schedule_channel: "files", schedule_format: "cim" })).status, 200);
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    const sub = await step(r.s, DAY, "submit");
    assert.equal(sub.status, 409);
    assert.match(
      (sub.body as { detail: string }).detail,
      /needs the balancing group, the sender EIC and the counterparty EIC; counterparty_eic is not configured; nothing was handed over/,
    );
    assert.deepEqual(await outboxFiles(r.outbox).catch(() => []), []);
  } finally {
    await r.close();
  }
});
