/**
 * Status requests (docs/fahrplan.md, "Status requests"): one TSO never answers a schedule. After
 * `tso_ack_overdue_minutes` (30) the orchestrator sends exactly one status request for it — never
 * one per tick — in the schedule's format, shaped like the real samples (CIM: valid against
 * ENTSO-E's 451-5 schema; ESS: the sample's element structure); the console says "status requested
 * HH:MM, no answer yet" in the row and the attention list; the TSO simulator answers the request
 * with its current answer, a CNF, which confirms the version and ends the attention item. The
 * manual `POST …/status-request` answers which file went out, and refuses a day never sent.
 *
 * Real parts: the app on a temp-file KV over HTTP, outbox and inbox on disk, the TSO simulator
 * (dev/tso_simulator.ts) on the service's fake clock.
 */
import assert from "node:assert/strict";
import { startTsoSimulator } from "../../dev/tso_simulator.ts";
import { call } from "../support/app.ts";
import {
  orchestrate,
  postForecast,
  proc,
  putLocation,
  rig,
  step,
} from "../support/day_ahead_rig.ts";
import { assertCimValid, elementPaths, FILES_CHANNEL_ENV, fixture } from "../support/fahrplan.ts";
import { AREAS } from "../support/portfolio.ts";
import type { AttentionItem } from "../../lib/wire/attention.ts";

const DAY = "2026-11-25";
const ESS_SAMPLE = "20241022_SRQ_11X0-1111-0762-I_10XDE-AOE-HTCC-C.xml";
type Sched = {
  control_area: string;
  tso_status: string;
  version: number;
  status_request?: { at: string; file: string; state: string; answered: boolean } | null;
};

for (const format of ["cim", "ess"] as const) {
  Deno.test(`status request (${format}): one TSO never answers; one SRQ after 30 minutes, its answer confirms`, async () => {
    const inbox = await Deno.makeTempDir({ prefix: "bridge-inbox-" });
    // 07:00 Berlin the day before: before gate closure and the TSO deadline.
    const r = await rig("2026-11-24T06:00:00Z", {
      ...FILES_CHANNEL_ENV,
      SCHEDULE_FORMAT: format,
      ACTIVE_CONTROL_AREAS: `${AREAS.amprion},${AREAS.tennet}`,
      SCHEDULE_INBOX_DIR: inbox,
      // The orchestrator works on this day alone (tomorrow), not on a week of silent days.
      ORCHESTRATOR_HORIZON_DAYS: "1",
    });
    const tsos = startTsoSimulator({
      outbox: r.outbox,
      inbox,
      pollMs: 0,
      clock: r.clock,
      silentAreas: [AREAS.tennet],
    });
    const schedules = async () => {
      const o = await call(`${r.s.url}/v1/console/delivery-days`, { headers: proc });
      const d = (o.body as { delivery_days: { delivery_day: string; schedules: Sched[] }[] })
        .delivery_days.find((x) => x.delivery_day === DAY);
      return new Map((d?.schedules ?? []).map((x) => [x.control_area, x]));
    };
    const attention = async () => {
      const o = await call(`${r.s.url}/v1/console/status`, { headers: proc });
      return (o.body as { attention: AttentionItem[] }).attention;
    };
    /** The simulator answers what it has, then one orchestrator pass (imports, asks). */
    const pass = async () => {
      await tsos.pump();
      await orchestrate(r.s);
    };
    const requests = () =>
      [...Deno.readDirSync(r.outbox)].map((f) => f.name).filter((f) => f.includes("_SRQ_"));
    const events = async () => {
      const o = await call(`${r.s.url}/v1/console/events?kind=status_requested&limit=50`, {
        headers: proc,
      });
      return (o.body as { events: { message: string; data: Record<string, unknown> }[] }).events;
    };
    try {
      await putLocation(r.s, 1, { control_area: AREAS.amprion, direction: "consumption" });
      await putLocation(r.s, 2, { control_area: AREAS.tennet, direction: "consumption" });
      await postForecast(r.s, 1, DAY, Array(96).fill(1_000));
      await postForecast(r.s, 2, DAY, Array(96).fill(2_000));
      assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
      assert.equal((await step(r.s, DAY, "submit")).status, 200);
      await pass();
      let s = await schedules();
      assert.equal(s.get(AREAS.amprion)?.tso_status, "confirmed");
      assert.equal(s.get(AREAS.tennet)?.tso_status, "sent");

      // 29 minutes after sending: not overdue yet.
      r.clock.advance(29 * 60_000);
      await pass();
      assert.deepEqual(requests(), []);

      // 30 minutes: exactly one request, to TenneT, for this day; more ticks send no second one.
      r.clock.advance(60_000);
      await pass();
      r.clock.advance(60_000);
      await orchestrate(r.s); // the TSO still silent: no answer pumped
      await orchestrate(r.s);
      const want = `20261125_SRQ_${FILES_CHANNEL_ENV.SENDER_EIC}_10XDE-EON-NETZ-C.xml`;
      assert.deepEqual(requests(), [want]);
      const told = await events();
      assert.equal(told.length, 1);
      assert.match(
        told[0].message,
        new RegExp(
          `^Status request ${want} sent to TenneT TSO for ${DAY} \\(version 1\\): no acknowledgement 30 minutes after sending\\.$`,
        ),
      );
      const xml = Deno.readTextFileSync(`${r.outbox}/${want}`);
      if (format === "cim") {
        assert.equal(await assertCimValid(xml), "iec62325-451-5-statusrequest_v4_1.xsd");
        assert.match(xml, /<attributeValue>2026-11-24T23:00Z\/2026-11-25T23:00Z<\/attributeValue>/);
      } else {
        assert.deepEqual(elementPaths(xml), elementPaths(fixture(ESS_SAMPLE)));
        assert.match(xml, /<MessageType v="A59"\/>/);
        assert.match(xml, /<RequestedTimeInterval v="2026-11-24T23:00Z\/2026-11-25T23:00Z"\/>/);
      }
      s = await schedules();
      assert.deepEqual(s.get(AREAS.tennet)?.status_request, {
        at: "2026-11-24T06:30:00.000Z",
        file: want,
        state: "ack",
        answered: false,
      });
      const item = (await attention()).find((a) => a.code === "status_requested");
      assert.ok(item, JSON.stringify(await attention()));
      assert.equal(item.level, "warn");
      assert.match(
        item.message,
        /TenneT TSO \(10YDE-EON------1\) has not answered schedule v1; status requested 07:30, no answer yet\./,
      );

      // The TSO answers the request with its current answer: the CNF.
      await pass();
      assert.deepEqual(tsos.statusRequests(), [want]);
      s = await schedules();
      assert.equal(s.get(AREAS.tennet)?.tso_status, "confirmed");
      assert.equal(s.get(AREAS.tennet)?.status_request?.answered, true);
      assert.equal((await attention()).some((a) => a.code === "status_requested"), false);
      assert.equal((await events()).length, 1);

      // By hand: which file went out; a day never sent is refused in words.
      const manual = await call(
        `${r.s.url}/v1/delivery-days/${DAY}/schedules/${AREAS.amprion}/status-request`,
        { method: "POST", headers: proc },
      );
      assert.equal(manual.status, 200, JSON.stringify(manual.body));
      assert.equal(
        (manual.body as { file: string }).file,
        `20261125_SRQ_${FILES_CHANNEL_ENV.SENDER_EIC}_10XDE-RWENET---W.xml`,
      );
      assert.equal((manual.body as { state: string }).state, "manual");
      const never = await call(
        `${r.s.url}/v1/delivery-days/2026-11-27/schedules/${AREAS.amprion}/status-request`,
        { method: "POST", headers: proc },
      );
      assert.equal(never.status, 409);
      assert.match(
        (never.body as { detail: string }).detail,
        /No schedule of 2026-11-27 for 10YDE-RWENET---I was sent/,
      );
    } finally {
      await tsos.close();
      await r.close();
      await Deno.remove(inbox, { recursive: true }).catch(() => {});
    }
  });
}
