/**
 * The actuals inbox on the sFTP server (docs/settlement.md, "Inbox"), against a real OpenSSH sshd
 * (tests/support/sshd.ts): an orchestrator pass imports the real MSCONS interchange that landed in
 * `SFTP_ACTUALS_INBOX_DIR` and moves it to `processed/` on the server; a file it does not recognise
 * goes to `rejected/` there, with the reason beside it (`<name>.reason.txt`) and a warning event
 * naming it and the reason.
 *
 * Skipped, with the reason printed, when sshd is unavailable; `REQUIRE_E2E=1` makes that a failure.
 */
import assert from "node:assert/strict";
import { actualsOfDay } from "../../lib/settlement/actuals_store.ts";
import { call, startServer, storedEvents } from "../support/app.ts";
import { EXT, PROC } from "../support/keys.ts";
import { sshdUnavailableReason, startSshd } from "../support/sshd.ts";

const unavailable = sshdUnavailableReason();
const required = Deno.env.get("REQUIRE_E2E") === "1";
if (unavailable && !required) {
  console.log(
    `settlement_sftp_inbox_test: skipped, ${unavailable} (REQUIRE_E2E=1 makes this a failure)`,
  );
}
const MULTI = Deno.readTextFileSync(
  new URL("../fixtures/mscons/MSCONS_TL_Multiple_LOC_SAMPLE.txt", import.meta.url),
);

Deno.test({
  name: "sFTP actuals inbox over sshd: MSCONS imported and moved, a stranger rejected in words",
  ignore: unavailable !== undefined && !required,
}, async () => {
  if (unavailable) throw new Error(`REQUIRE_E2E=1 but ${unavailable}`);
  const sshd = await startSshd();
  const dir = await Deno.makeTempDir({ prefix: "bridge-sftp-actuals-" });
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    OUTBOX_DIR: `${dir}/outbox`,
    SCHEDULE_INBOX_DIR: `${dir}/inbox`,
    PUBLISH_TARGET: "outbox",
    ORCHESTRATOR_HORIZON_DAYS: "1",
    SFTP_HOST: sshd.host,
    SFTP_PORT: String(sshd.port),
    SFTP_USERNAME: sshd.username,
    SFTP_PASSWORD: sshd.password,
    SFTP_HOST_KEY_SHA256: sshd.hostKeySha256,
    SFTP_ACTUALS_INBOX_DIR: sshd.dir,
  });
  try {
    for (const id of ["51481308448", "51481308456"]) {
      const r = await call(`${s.url}/v1/market-locations/${id}`, {
        method: "PUT",
        headers: { "x-api-key": EXT },
        body: JSON.stringify({ control_area: "10YDE-RWENET---I", direction: "consumption" }),
      });
      assert.equal(r.status, 201);
    }
    await Deno.writeTextFile(`${sshd.dir}/MSCONS_202203.edi`, MULTI);
    await Deno.writeTextFile(`${sshd.dir}/notes.txt`, "not a metering file");
    const r = await call(`${s.url}/v1/orchestrate`, {
      method: "POST",
      headers: { "x-api-key": PROC },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const names = (d: string) => [...Deno.readDirSync(d)].map((e) => e.name).sort();
    assert.deepEqual(names(`${sshd.dir}/processed`), ["MSCONS_202203.edi"]);
    assert.deepEqual(names(`${sshd.dir}/rejected`), ["notes.txt", "notes.txt.reason.txt"]);
    assert.match(
      await Deno.readTextFile(`${sshd.dir}/rejected/notes.txt.reason.txt`),
      /^not recognised: neither EDIFACT \(UNA\/UNB\), nor a price file \(the reBAP, the data service's reBAP, AEP estimate or ID AEP/,
    );
    assert.equal((await actualsOfDay(s.kv, "2022-03-27")).size, 2);
    const rejected = (await storedEvents(s.kv)).filter((e) =>
      e.kind === "settlement_input_rejected"
    );
    assert.equal(rejected.length, 1);
    assert.match(
      String(rejected[0].message),
      /The file notes\.txt in the sFTP inbox .* not recognised/,
    );
  } finally {
    await s.close();
    await sshd.close();
    await Deno.remove(dir, { recursive: true });
  }
});
