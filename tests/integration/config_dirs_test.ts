/**
 * Errors in words (docs/console.md, "Errors in words"): a local directory of the configuration
 * (`outbox_dir`, `schedule_inbox_dir`) is checked when it is set and refused with a 422 in words;
 * a permission error at run time reads "the service may not write to /…: check the directory and
 * the permissions of the service's user", never the runtime's advice about flags; a
 * `config_changed` event names old → new, a secret only as set.
 *
 * `/sys` refuses a new directory even to root (EPERM), so the permission cases are real.
 */
import assert from "node:assert/strict";
import { call, startServer, storedEvents } from "../support/app.ts";
import { BEFORE_GC, DAY, portfolio, rig, step } from "../support/day_ahead_rig.ts";
import { PROC } from "../support/keys.ts";

const proc = { "x-api-key": PROC, "content-type": "application/json" };
const FORBIDDEN = "/sys/bridge-outbox-test";
const SENTENCE =
  `the service may not write to ${FORBIDDEN}: check the directory and the permissions of the service's user`;
type Item = { loc: string[]; msg: string; type: string };

Deno.test("config: an unusable directory is refused with a 422 in words; a usable one is created and kept", async () => {
  const s = await startServer({ PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" });
  const dir = await Deno.makeTempDir({ prefix: "bridge-dirs-" });
  try {
    const put = (body: unknown) =>
      call(`${s.url}/v1/console/config`, {
        method: "PUT",
        headers: proc,
        body: JSON.stringify(body),
      });
    await Deno.writeTextFile(`${dir}/a-file`, "x");
    const r = await put({ outbox_dir: FORBIDDEN, schedule_inbox_dir: `${dir}/a-file/inbox` });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    const items = (r.body as { detail: Item[] }).detail.sort((a, b) =>
      a.loc.join().localeCompare(b.loc.join())
    );
    assert.deepEqual(items.map((i) => [i.loc.join("."), i.type]), [
      ["body.outbox_dir", "value_error.directory"],
      ["body.schedule_inbox_dir", "value_error.directory"],
    ]);
    assert.equal(items[0].msg, SENTENCE);
    assert.equal(
      items[1].msg,
      `${dir}/a-file/inbox is a file or lies below a file, not a directory: choose a directory`,
    );
    assert.doesNotMatch(JSON.stringify(r.body), /allow|flag|os error/i);
    // Nothing was written.
    const view = await call(`${s.url}/v1/console/config`, { headers: proc });
    const fields = (view.body as { fields: Record<string, { value: unknown; source: string }> })
      .fields;
    assert.deepEqual([fields.outbox_dir.source, fields.schedule_inbox_dir.source], [
      "default",
      "default",
    ]);

    // A directory that does not exist yet but can be created: accepted, created, no probe left.
    const ok = await put({ outbox_dir: `${dir}/new/outbox` });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.ok((await Deno.stat(`${dir}/new/outbox`)).isDirectory);
    assert.deepEqual([...Deno.readDirSync(`${dir}/new/outbox`)], []);
  } finally {
    await s.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("config_changed says old → new; a secret only as set, never its value", async () => {
  const s = await startServer({ PROCESS_API_KEYS: `ops:${PROC}`, RATE_LIMIT_PER_MINUTE: "0" });
  try {
    const r = await call(`${s.url}/v1/console/config`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({
        sftp_port: 2222,
        sftp_password: "hunter2-hunter2",
        active_control_areas: ["10YDE-RWENET---I"],
      }),
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const ev = (await storedEvents(s.kv)).filter((e) => e.kind === "config_changed").at(-1)!;
    assert.equal(
      ev.message,
      "ops changed the configuration: sftp_port 22 → 2222; sftp_password set (secret, not shown); " +
        "active_control_areas 10YDE-RWENET---I, 10YDE-EON------1, 10YDE-ENBW-----N, 10YDE-VE-------2 → 10YDE-RWENET---I.",
    );
    assert.doesNotMatch(JSON.stringify(ev), /hunter2/);
  } finally {
    await s.close();
  }
});

Deno.test("publish into a directory the service may not write: the step fails in words, no runtime text", async () => {
  const r = await rig(BEFORE_GC, { OUTBOX_DIR: FORBIDDEN });
  try {
    await portfolio(r.s);
    assert.equal((await step(r.s, DAY, "aggregate")).status, 200);
    const p = await step(r.s, DAY, "publish");
    assert.equal(p.status, 502, JSON.stringify(p.body));
    const detail = (p.body as { detail: string }).detail;
    assert.match(detail, /^Publishing \S+\.csv failed: /);
    assert.ok(detail.endsWith(SENTENCE), detail);
    const failure = (await storedEvents(r.s.kv)).filter((e) => e.kind === "orchestration_error")
      .at(-1)!;
    assert.ok(String(failure.message).endsWith(SENTENCE), String(failure.message));
    assert.doesNotMatch(JSON.stringify(p.body) + JSON.stringify(failure), /allow|flag|os error/i);
  } finally {
    await r.close();
  }
});

Deno.test("import from an inbox the service may not write: answered per inbox in words, not a 500", async () => {
  // /sys/kernel exists and lists files, but nothing in it may be renamed (EPERM, also for root).
  const s = await startServer({
    PROCESS_API_KEYS: `ops:${PROC}`,
    RATE_LIMIT_PER_MINUTE: "0",
    SCHEDULE_INBOX_DIR: "/sys/kernel",
  });
  try {
    const r = await call(`${s.url}/v1/schedule-responses/import`, {
      method: "POST",
      headers: proc,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual((r.body as { files: unknown[] }).files, [{
      file: "/sys/kernel",
      outcome: "failed",
      reason:
        "the service may not write to /sys/kernel: check the directory and the permissions of the service's user",
    }]);
    const ev = (await storedEvents(s.kv)).find((e) => e.kind === "orchestration_error");
    assert.equal(
      ev?.message,
      "The inbox /sys/kernel could not be read: the service may not write to /sys/kernel: check the directory and the permissions of the service's user.",
    );
  } finally {
    await s.close();
  }
});
