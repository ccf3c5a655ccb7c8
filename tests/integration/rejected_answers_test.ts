/**
 * An answer file the inbox import moves to `rejected/` (docs/console_attention.md): it is a
 * warning in `attention` naming the file and the reason until the operator acknowledges it or a
 * newer answer for its day and area arrives; the pass that rejected it says so in the pass
 * history, and "Import answers" counts it although the inbox is empty by then.
 *
 * Real parts: the app on a temp-file KV over HTTP with a fake clock, the outbox and inbox on
 * disk, answer files in the structure of the real ESS samples.
 */
import assert from "node:assert/strict";
import { call, storedEvents } from "../support/app.ts";
import { BEFORE_GC, DAY, portfolio, proc, rig } from "../support/day_ahead_rig.ts";
import { FILES_CHANNEL_ENV } from "../support/fahrplan.ts";
import { cnfFile, TSO } from "../support/tso_answers.ts";
import type { AttentionItem } from "../../lib/wire/attention.ts";
import type { PassPage } from "../../lib/wire/pass_history.ts";

const DATED = "20261123_TPS_11XDE-EXAMPLE--H_10XDE-RWENET---W_ACK.xml";

Deno.test("a rejected answer file is a warning until acknowledged or answered anew; the pass and the import count it", async () => {
  const r = await rig(BEFORE_GC, FILES_CHANNEL_ENV);
  const inbox = `${r.dir}/inbox`;
  const attention = async () => {
    r.clock.advance(1000); // the list is computed at most once a second
    const res = await call(`${r.s.url}/v1/console/status`, { headers: proc });
    return (res.body as { attention: AttentionItem[] }).attention
      .filter((i) => i.code === "rejected_answer");
  };
  try {
    await call(`${r.s.url}/v1/console/config`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({ schedule_inbox_dir: inbox }),
    });
    await call(`${r.s.url}/v1/console/start`, { method: "POST", headers: proc });
    await portfolio(r.s);
    await Deno.mkdir(inbox, { recursive: true });
    await Deno.writeTextFile(`${inbox}/junk.xml`, "this is no answer");
    await Deno.writeTextFile(`${inbox}/${DATED}`, "<AcknowledgementMessage/>");

    const tick = await r.s.bridge.orchestrator.tick("replica-a");
    assert.ok(tick.ran);
    assert.deepEqual(tick.report.rejected_files?.map((f) => f.file).sort(), [DATED, "junk.xml"]);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(`${inbox}/rejected`))).length, 4); // each with its reason
    const page = (await call(`${r.s.url}/v1/console/passes`, { headers: proc })).body as PassPage;
    assert.equal(page.passes[0].rejected_files?.length, 2);
    assert.ok(page.passes[0].rejected_files!.every((f) => f.reason.length > 5));

    const items = await attention();
    assert.equal(items.length, 2, JSON.stringify(items));
    const junk = items.find((i) => i.file === "junk.xml")!;
    assert.equal(junk.level, "warn");
    assert.equal(junk.delivery_day, null);
    assert.match(
      junk.message,
      new RegExp(
        `^The answer file junk\\.xml in the inbox ${inbox} was not imported at 09:00 Berlin: .+; moved to rejected/\\. Ask the TSO that sent it to resend its answer; then press Seen\\.$`,
      ),
    );
    const dated = items.find((i) => i.file === DATED)!;
    assert.equal(dated.delivery_day, DAY);
    // The day as the operator says it, and what to do (issue 36, items 9 and 10).
    assert.match(dated.message, /^The answer file \S+ about tomorrow \(Mon 23 Nov\) in the inbox /);
    assert.match(
      dated.message,
      /Ask the TSO to resend its answer, or send a status request from tomorrow's schedules; then press Seen\.$/,
    );

    // The inbox is empty now; the import still counts what waits.
    const imp = await call(`${r.s.url}/v1/schedule-responses/import`, {
      method: "POST",
      headers: proc,
    });
    assert.equal(imp.status, 200);
    const body = imp.body as { files: unknown[]; rejected_waiting: { file: string }[] };
    assert.deepEqual(body.files, []);
    assert.deepEqual(body.rejected_waiting.map((f) => f.file).sort(), [DATED, "junk.xml"]);

    // Acknowledged: gone, with an event; a second time: 404 in words.
    const ack = (file: string) =>
      call(`${r.s.url}/v1/schedule-responses/rejected/${encodeURIComponent(file)}/acknowledge`, {
        method: "POST",
        headers: proc,
      });
    assert.equal((await ack("junk.xml")).status, 200);
    const again = await ack("junk.xml");
    assert.equal(again.status, 404);
    assert.equal(
      (again.body as { detail: string }).detail,
      "No rejected answer file named junk.xml waits to be acknowledged.",
    );
    const events = await storedEvents(r.s.kv);
    assert.ok(
      events.some((e) =>
        e.kind === "rejected_answer_acknowledged" &&
        /^ops acknowledged .*junk\.xml/.test(String(e.message))
      ),
    );
    assert.deepEqual((await attention()).map((i) => i.file), [DATED]);

    // A newer answer for its day settles the dated one.
    await Deno.writeTextFile(`${inbox}/cnf.xml`, cnfFile(DAY, TSO.amprion, 1));
    const second = await call(`${r.s.url}/v1/schedule-responses/import`, {
      method: "POST",
      headers: proc,
    });
    assert.equal((second.body as { files: { outcome: string }[] }).files[0].outcome, "imported");
    assert.deepEqual(await attention(), []);
  } finally {
    await r.close();
  }
});
