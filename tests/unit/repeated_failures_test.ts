/**
 * Repeated failures are one story (docs/api.md, "Event history"; lib/store/repeated_failures.ts): the
 * first failure is an event, its repeats are counted on it, one recovery event ends it; the
 * process log has the first line and the recovery line only; the count survives a restart and
 * two replicas count on one story; live readers get the rewrite.
 *
 * Real parts: Deno KV on a temp file (two connections for two replicas), the event log, the
 * process log with a collecting sink, the event hub; time from a FakeClock.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { type LogLevel, ProcessLog } from "../../lib/log.ts";
import { EventHub } from "../../lib/store/event_hub.ts";
import { EventLog, type EventRecord, type NewEvent } from "../../lib/store/events.ts";
import { Redactor } from "../../lib/store/redactor.ts";
import {
  normaliseMessage,
  reportFailure,
  reportRecovery,
  sinceBerlin,
} from "../../lib/store/repeated_failures.ts";
import { encodeSseEvents, encodeSseUpdate } from "../../lib/http/sse.ts";

const START = Date.parse("2026-11-22T09:02:00Z"); // 10:02 Berlin
const INBOX = { source: "sftp_inbox:/in", label: "The sFTP inbox /in" };
const PUBLISH = { source: "step:publish", label: "Publishing the open position of 2026-11-23" };

const inboxDown = (port: number, attempt: number): NewEvent => ({
  kind: "orchestration_error",
  level: "error",
  message:
    `The sFTP inbox /in could not be read: sFTP connection to 127.0.0.1:${port} failed after ${attempt} attempts at 2026-11-22T09:${
      String(attempt % 60).padStart(2, "0")
    }:00.123Z`,
  caller: "orchestrator",
  data: { inbox: "/in" },
});
const publishDown = (): NewEvent => ({
  kind: "orchestration_error",
  level: "error",
  message:
    "Publishing the open position of 2026-11-23 failed: sFTP connection to 127.0.0.1:2222 failed",
  caller: "orchestrator",
  delivery_day: "2026-11-23",
  data: { step: "publish" },
});

async function replica(path: string, clock: FakeClock) {
  const kv = await Deno.openKv(path);
  const lines: { level: LogLevel; line: Record<string, unknown> }[] = [];
  const log = new ProcessLog(new Redactor(), clock, {
    sink: { write: (level, line) => lines.push({ level, line: JSON.parse(line) }) },
  });
  const events = new EventLog(kv, clock, new Redactor(), {
    onStored: (records) => records.forEach((r) => log.event(r)),
  });
  const all = async () => {
    const out: EventRecord[] = [];
    for await (const e of kv.list<EventRecord>({ prefix: ["events"] })) out.push(e.value);
    return out;
  };
  return { kv, events, clock, log, lines, all, close: () => kv.close() };
}

async function withStore(fn: (path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "bridge-stories-" });
  try {
    await fn(`${dir}/bridge.kv`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("ports, instants and attempt counts do not make two failures different", () => {
  assert.equal(
    normaliseMessage(inboxDown(40022, 3).message),
    normaliseMessage(inboxDown(51515, 7).message),
  );
  assert.equal(
    normaliseMessage("The orchestrator tick of replica-1a2b3c4d failed: database is locked"),
    normaliseMessage("The orchestrator tick of replica-ffe09a7b failed: database is locked"),
  );
  assert.notEqual(
    normaliseMessage("connection refused"),
    normaliseMessage("authentication failed"),
  );
  assert.equal(sinceBerlin("2026-11-22T09:02:00Z", "2026-11-22T09:41:00Z"), "10:02 Berlin");
  assert.equal(
    sinceBerlin("2026-11-22T09:02:00Z", "2026-11-23T09:41:00Z"),
    "2026-11-22 10:02 Berlin",
  );
});

Deno.test("40 failures a minute apart: one event with repeats 39, across a restart; then one recovery event", async () => {
  await withStore(async (path) => {
    const clock = new FakeClock(START);
    let a = await replica(path, clock);
    for (let i = 0; i < 40; i++) {
      if (i === 20) { // a restart on the same KV file: the count goes on
        a.close();
        const before = a.lines;
        a = await replica(path, clock);
        assert.equal(before.length, 1, "only the first failure wrote a log line");
      }
      await reportFailure(a, INBOX, inboxDown(40000 + i, i + 1));
      clock.advance(60_000);
    }
    let events = await a.all();
    assert.equal(events.length, 1);
    const [first] = events;
    assert.equal(first.kind, "orchestration_error");
    assert.equal(first.ts, "2026-11-22T09:02:00.000Z");
    assert.deepEqual(first.data, {
      inbox: "/in",
      repeats: 39,
      first_at: "2026-11-22T09:02:00.000Z",
      last_at: "2026-11-22T09:41:00.000Z",
    });
    assert.match(first.message, /^The sFTP inbox \/in could not be read: .*127\.0\.0\.1:40000 /);
    assert.match(first.message, / — again 39 times since 10:02 Berlin$/);
    assert.equal(a.lines.length, 0, "no log line per repeat");

    assert.equal(await reportRecovery(a, INBOX.source, null, "orchestrator"), 1);
    assert.equal(await reportRecovery(a, INBOX.source, null, "orchestrator"), 0, "once");
    events = await a.all();
    assert.equal(events.length, 2);
    assert.equal(events[1].kind, "orchestration_recovered");
    assert.equal(events[1].level, "info");
    assert.match(
      events[1].message,
      /^The sFTP inbox \/in works again after 40 failures since 10:02 Berlin \(first: /,
    );
    assert.equal(events[1].data?.failure_event_id, first.id);
    assert.deepEqual(a.lines.map((l) => [l.level, l.line.kind]), [
      ["info", "orchestration_recovered"],
    ]);

    // The next failure is a new story.
    await reportFailure(a, INBOX, inboxDown(1, 1));
    events = await a.all();
    assert.equal(events.length, 3);
    assert.equal(events[2].data?.repeats, undefined);
    assert.doesNotMatch(events[2].message, /again/);
    a.close();
  });
});

Deno.test("two different errors are two stories; a recovery ends only its own", async () => {
  await withStore(async (path) => {
    const clock = new FakeClock(START);
    const a = await replica(path, clock);
    for (let i = 0; i < 5; i++) {
      await reportFailure(a, INBOX, inboxDown(40000 + i, 1));
      await reportFailure(a, PUBLISH, publishDown());
      if (i < 3) {
        await reportFailure(a, INBOX, {
          ...inboxDown(1, 1),
          message: "The sFTP inbox /in could not be read: authentication failed",
        });
      }
      clock.advance(60_000);
    }
    let events = await a.all();
    assert.deepEqual(events.map((e) => [e.data?.repeats, e.delivery_day ?? null]), [
      [4, null],
      [4, "2026-11-23"],
      [2, null],
    ]);
    assert.equal(a.lines.length, 3, "one error line per story");
    assert.equal(await reportRecovery(a, PUBLISH.source, "2026-11-24", "orchestrator"), 0);
    assert.equal(await reportRecovery(a, PUBLISH.source, "2026-11-23", "orchestrator"), 1);
    events = await a.all();
    assert.equal(events.length, 4);
    assert.equal(events[3].delivery_day, "2026-11-23");
    assert.match(
      events[3].message,
      /^Publishing the open position of 2026-11-23 works again after 5 failures/,
    );
    // Both inbox stories end with the inbox's recovery.
    assert.equal(await reportRecovery(a, INBOX.source, null, "orchestrator"), 2);
    a.close();
  });
});

Deno.test("two replicas failing at the same moments count on one story with one first event", async () => {
  await withStore(async (path) => {
    const clock = new FakeClock(START);
    const a = await replica(path, clock);
    const b = await replica(path, clock);
    for (let i = 0; i < 10; i++) {
      await Promise.all([
        reportFailure(a, INBOX, inboxDown(1000 + i, 1)),
        reportFailure(b, INBOX, inboxDown(2000 + i, 2)),
      ]);
      clock.advance(60_000);
    }
    const events = await a.all();
    assert.equal(events.length, 1, JSON.stringify(events.map((e) => e.message)));
    assert.equal(events[0].data?.repeats, 19);
    assert.match(events[0].message, /again 19 times since 10:02 Berlin$/);
    assert.equal(a.lines.length + b.lines.length, 1);
    a.close();
    b.close();
  });
});

Deno.test("a live reader gets the rewritten event as event_updated, without an id line", async () => {
  await withStore(async (path) => {
    const clock = new FakeClock(START);
    const a = await replica(path, clock);
    await reportFailure(a, INBOX, inboxDown(1, 1));
    const hub = new EventHub(a.events, encodeSseEvents, { encodeUpdate: encodeSseUpdate });
    const got: string[] = [];
    const sub = await hub.subscribe(await a.events.head(), {
      onEvents: (_r, bytes) => got.push(new TextDecoder().decode(bytes)),
      onHeartbeat: () => {},
      onError: (err) => got.push(`error ${err}`),
      onUpdate: (_r, bytes) => got.push(new TextDecoder().decode(bytes)),
    });
    clock.advance(60_000);
    await reportFailure(a, INBOX, inboxDown(2, 1));
    sub.close();
    assert.equal(got.length, 1);
    assert.match(got[0], /^event: event_updated\ndata: \{.*"repeats":1.*\}\n\n$/);
    assert.doesNotMatch(got[0], /^id:/m);
    a.close();
  });
});
