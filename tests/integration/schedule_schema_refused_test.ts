/**
 * A document the standard refuses never leaves (docs/fahrplan.md, "Schema validation"): with
 * `ESS_DTD_DIR` naming a DTD that this schedule cannot satisfy (a small DTD written for this
 * test, not the TSOs' official one), the submit step answers 409 `ERR_SCHEMA_INVALID` with the
 * file, the line and the element in words; no schedule file is in the outbox; the day's row shows
 * the failure with the same sentence; the event and the process log say it once.
 */
import assert from "node:assert/strict";
import { call, storedEvents } from "../support/app.ts";
import { BEFORE_GC, DAY, portfolio, proc, rig, step } from "../support/day_ahead_rig.ts";
import { FILES_CHANNEL_ENV } from "../support/fahrplan.ts";
import { fileNames } from "../support/tso_answers.ts";

/** TEST DTD (not the official ESS DTD): a ScheduleMessage that must carry a Reason. */
const STRICT = `<!ELEMENT ScheduleMessage (Reason)>
<!ATTLIST ScheduleMessage DtdVersion CDATA #REQUIRED DtdRelease CDATA #REQUIRED>
<!ELEMENT Reason EMPTY>`;

Deno.test("a schedule the DTD refuses is not sent: 409 in words, no file, the day and one event say so", async () => {
  const dtd = await Deno.makeTempDir({ prefix: "bridge-test-dtd-" });
  await Deno.writeTextFile(`${dtd}/schedule-xml.dtd`, STRICT);
  await Deno.writeTextFile(`${dtd}/request-xml.dtd`, "<!ELEMENT StatusRequest ANY>");
  const r = await rig(BEFORE_GC, { ...FILES_CHANNEL_ENV, ESS_DTD_DIR: dtd });
  try {
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    const refused = await step(r.s, DAY, "submit");
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    const detail = (refused.body as { detail: string }).detail;
    assert.match(
      detail,
      /_TPS_.*_001\.xml was not sent: it does not validate against the ESS DTD schedule-xml\.dtd: line \d+: .*MessageIdentification/,
    );
    assert.deepEqual((await fileNames(r.outbox)).filter((f) => f.includes("_TPS_")), []);
    const o = await call(`${r.s.url}/v1/console/delivery-days`, { headers: proc });
    const day = (o.body as {
      delivery_days: {
        delivery_day: string;
        steps: { submitted: unknown };
        failures: { submitted: { message: string } | null };
      }[];
    }).delivery_days.find((d) => d.delivery_day === DAY)!;
    assert.equal(day.steps.submitted, null);
    assert.match(
      day.failures.submitted!.message,
      /was not sent: it does not validate against the ESS DTD/,
    );
    const told = (await storedEvents(r.s.kv)).filter((e) =>
      String(e.message).includes("does not validate")
    );
    assert.equal(told.length, 1, JSON.stringify(told));
  } finally {
    await r.close();
    await Deno.remove(dtd, { recursive: true });
  }
});
