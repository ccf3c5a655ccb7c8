/**
 * Intraday versions over sFTP (docs/intraday.md) against a real OpenSSH sshd
 * (tests/support/sshd.ts): the schedule documents land on the sFTP server, the TSO simulator (on
 * the service's clock, keeping the TSO's rules) answers into the sFTP inbox, and a version on the
 * delivery day carries the quarter-hours inside the lead time as the TSO has them.
 *
 * Skipped, with the reason printed, when sshd is unavailable (not installed, not root); with
 * `REQUIRE_E2E=1` the test runs anyway and fails on a missing sshd.
 */
import assert from "node:assert/strict";
import { XMLParser } from "fast-xml-parser";
import { startTsoSimulator } from "../../dev/tso_simulator.ts";
import { FakeClock } from "../../lib/clock.ts";
import { deliveryDay } from "../../lib/domain/delivery_day.ts";
import { frozenCount } from "../../lib/domain/deadlines.ts";
import { versionHistory } from "../../lib/fahrplan/history.ts";
import { call, startServer } from "../support/app.ts";
import {
  EXT,
  orchestrate,
  postForecast,
  PROC,
  proc,
  putLocation,
} from "../support/day_ahead_rig.ts";
import { FILES_CHANNEL_ENV, PARTIES } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";
import { sshdUnavailableReason, startSshd } from "../support/sshd.ts";

const unavailable = sshdUnavailableReason();
const required = Deno.env.get("REQUIRE_E2E") === "1";
if (unavailable && !required) {
  console.log(
    `schedule_intraday_sftp_test: skipped, ${unavailable} (REQUIRE_E2E=1 makes this a failure)`,
  );
}
const DAY = "2026-10-25"; // 100 quarter-hours
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" });
const berlin = (date: string, hhmm: string) =>
  Temporal.PlainDate.from(date).toZonedDateTime({
    timeZone: "Europe/Berlin",
    plainTime: Temporal.PlainTime.from(hhmm),
  }).epochMilliseconds;

Deno.test({
  name:
    "intraday over sFTP (sshd): documents on the server, answers from the sFTP inbox, frozen quarter-hours",
  ignore: unavailable !== undefined && !required,
}, async () => {
  if (unavailable) throw new Error(`REQUIRE_E2E=1 but ${unavailable}`);
  const sshd = await startSshd();
  const answers = `${sshd.dir}/answers`;
  const env = {
    PROCESS_API_KEYS: `ops:${PROC}`,
    EXTERNAL_API_KEYS: `acme:${EXT}`,
    RATE_LIMIT_PER_MINUTE: "0",
    ...FILES_CHANNEL_ENV,
    ACTIVE_CONTROL_AREAS: AREAS.amprion,
    ORCHESTRATOR_HORIZON_DAYS: "1",
    PUBLISH_TARGET: "sftp",
    SFTP_HOST: sshd.host,
    SFTP_PORT: String(sshd.port),
    SFTP_USERNAME: sshd.username,
    SFTP_PASSWORD: sshd.password,
    SFTP_HOST_KEY_SHA256: sshd.hostKeySha256,
    SFTP_REMOTE_DIR: sshd.dir,
    SFTP_INBOX_DIR: answers,
  };
  const clock = new FakeClock(berlin("2026-10-24", "10:00"));
  const s = await startServer(env, { clock });
  const tsos = startTsoSimulator({ outbox: sshd.dir, inbox: answers, pollMs: 0, clock });
  const round = async () => {
    const p = await orchestrate(s);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    await tsos.pump();
    const imp = await call(`${s.url}/v1/schedule-responses/import`, {
      method: "POST",
      headers: proc,
    });
    assert.equal(imp.status, 200, JSON.stringify(imp.body));
  };
  const purchase = async (v: number) => {
    const name = `20261025_TPS_${PARTIES.sender}_10XDE-RWENET---W_00${v}.xml`;
    const m = xml.parse(await Deno.readTextFile(`${sshd.dir}/${name}`)).ScheduleMessage;
    return ([] as { Qty: { "@v": string } }[]).concat(m.ScheduleTimeSeries[0].Period.Interval)
      .map((p) => p.Qty["@v"]);
  };
  try {
    await putLocation(s, 1, { control_area: AREAS.amprion, direction: "consumption" });
    // The answers folder belongs to the sFTP user, as the server's upload folder does: the
    // importer claims a file by renaming it there.
    await Deno.mkdir(answers, { recursive: true });
    const owner = Deno.statSync(sshd.dir);
    Deno.chownSync(answers, owner.uid, owner.gid);
    await postForecast(s, 1, DAY, Array(100).fill(1_000));
    await round();
    // 02:52 CET on the day (the second 02:xx hour): frozen before 03:15 CET.
    clock.set(Date.parse("2026-10-25T01:52:00Z"));
    const f = frozenCount(deliveryDay(DAY), clock.now(), 15);
    assert.equal(f, 17);
    await postForecast(s, 1, DAY, Array(100).fill(2_000));
    await round();
    const [v1, v2] = [await purchase(1), await purchase(2)];
    assert.equal(v2.length, 100);
    assert.deepEqual(v2.slice(0, f), v1.slice(0, f));
    assert.deepEqual(v2.slice(f), Array(100 - f).fill("2.000"));
    const h = await versionHistory(s.kv, DAY, AREAS.amprion);
    assert.deepEqual(h.map((x) => `${x.version} ${x.phase} ${x.tso_status}`), [
      "1 day_ahead confirmed",
      "2 intraday confirmed",
    ]);
    assert.equal(h[1].frozen_before, "2026-10-25T02:15:00Z");
    assert.ok([...Deno.readDirSync(`${answers}/processed`)].length >= 4, "ACK and CNF imported");
  } finally {
    await tsos.close();
    await s.close();
    await sshd.close();
  }
});
