/**
 * The retention archive on the sFTP server (`sftp_archive_dir`, docs/retention.md, "Archive
 * target") against a real OpenSSH sshd (tests/support/sshd.ts): with sshd down the tick says so
 * in an error event and the day stays whole in the store; once sshd is back the next tick
 * archives it — every file checked against the manifest on the server, no temporary file left —
 * and the day leaves the store. The status names the sFTP target.
 *
 * Skipped, with the reason printed, when sshd is unavailable (not installed, not root); with
 * `REQUIRE_E2E=1` the test runs anyway and fails on a missing sshd.
 * @module
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { addDays, deliveryDay } from "../../lib/domain/delivery_day.ts";
import { DAY_SCOPED_PREFIXES, dayScopedRange } from "../../lib/store/keys.ts";
import { call, startServer, storedEvents } from "../support/app.ts";
import { PROC } from "../support/keys.ts";
import {
  archivedEventIds,
  checkedManifest,
  fastTempDir,
  filesUnder,
  registerPortfolio,
  retentionEnv,
  simulateDay,
} from "../support/retention_sim.ts";
import { sshdUnavailableReason, startSshd } from "../support/sshd.ts";

const unavailable = sshdUnavailableReason();
const required = Deno.env.get("REQUIRE_E2E") === "1";
if (unavailable && !required) {
  console.log(`retention_sftp_test: skipped, ${unavailable} (REQUIRE_E2E=1 makes this a failure)`);
}

async function recordsOf(kv: Deno.Kv, day: string): Promise<number> {
  let n = 0;
  for (const p of DAY_SCOPED_PREFIXES) for await (const _ of kv.list(dayScopedRange(p, day))) n++;
  return n;
}

Deno.test({
  name: "archive on sFTP over sshd: down is said and nothing leaves; back up, archived and pruned",
  ignore: unavailable !== undefined && !required,
}, async () => {
  if (unavailable) throw new Error(`REQUIRE_E2E=1 but ${unavailable}`);
  const sshd = await startSshd();
  await using tmp = await fastTempDir("retention-sftp-");
  const remote = `${sshd.dir}/archive`;
  const env = {
    ...retentionEnv(tmp.path, 30),
    SFTP_HOST: sshd.host,
    SFTP_PORT: String(sshd.port),
    SFTP_USERNAME: sshd.username,
    SFTP_PASSWORD: sshd.password,
    SFTP_HOST_KEY_SHA256: sshd.hostKeySha256,
    SFTP_ARCHIVE_DIR: remote,
    PUBLISH_TARGET: "outbox",
  };
  const clock = new FakeClock(Date.parse("2024-02-20T08:00:00Z"));
  const s = await startServer(env, { clock, kvPath: `${tmp.path}/bridge.kv` });
  try {
    await registerPortfolio(s);
    const days = ["2024-03-01", "2024-03-02"];
    for (const d of days) await simulateDay(s, clock, d);
    clock.set(deliveryDay(addDays(days[1], 40)).start.epochMilliseconds);

    await sshd.stop();
    await s.bridge.orchestrator.tick("replica-a");
    const failed = s.bridge.orchestrator.lastPrune;
    assert.match(failed?.error ?? "", /sFTP connection to 127\.0\.0\.1:\d+ failed/);
    assert.ok(!failed!.error!.includes(sshd.password), "no secret in the message");
    const errors = (await storedEvents(s.kv)).filter((e) => e.kind === "orchestration_error");
    assert.match(String(errors.at(-1)?.message), /^Retention \(archive and pruning\) failed: sFTP/);
    for (const d of days) assert.equal(await recordsOf(s.kv, d), 9, `${d} stays whole`);

    await sshd.restart();
    // Each tick spends its budget (250 ms) and stops; a few ticks archive both days, and then
    // the old events (after the days: in the same tick or a later one).
    const pruned: string[] = [];
    let eventsArchived = 0;
    for (let i = 0; i < 30 && (pruned.length < days.length || eventsArchived === 0); i++) {
      await s.bridge.orchestrator.tick("replica-a");
      assert.equal(s.bridge.orchestrator.lastPrune?.error, undefined);
      pruned.push(...s.bridge.orchestrator.lastPrune!.days_pruned);
      eventsArchived += s.bridge.orchestrator.lastPrune!.events_archived;
    }
    assert.deepEqual(pruned, days);
    for (const d of days) {
      assert.equal(await recordsOf(s.kv, d), 0, `${d} left the store`);
      const m = await checkedManifest(remote, d);
      assert.equal(m.counts.forecasts, 3);
    }
    const all = await filesUnder(remote);
    assert.deepEqual(all.filter((f) => f.includes(".part")), [], "no temporary file left");
    assert.ok(all.includes("2024/03/01/manifest.json") && all.includes("events/2024-02.jsonl"));
    assert.ok((await archivedEventIds(remote)).length > 0);

    const r = await call(`${s.url}/v1/console/status`, { headers: { "x-api-key": PROC } });
    const ret = (r.body as { retention: Record<string, unknown> }).retention;
    assert.equal(ret.archive_target, "sftp");
    assert.equal(ret.archive_dir, remote);
  } finally {
    await s.close();
    await sshd.close();
  }
});
