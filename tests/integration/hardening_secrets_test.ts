/**
 * No configured secret leaves in any form (docs/access-control.md, "Secrets"): not whole and not
 * as any substring of 8 or more characters, in an HTTP answer, a stored event or a process-log
 * line — also when a foreign system echoes it, when a foreign body is cut to length, and when a
 * body does not parse.
 *
 * Real parts: the app on a temp-file KV over HTTP on 127.0.0.1, the market-platform simulator
 * over TLS.
 */
import assert from "node:assert/strict";
import { call, startServer, storedEvents } from "../support/app.ts";
import { BEFORE_GC, DAY, portfolio, proc, rig, step } from "../support/day_ahead_rig.ts";
import { env, PROC } from "../support/pipeline.ts";
import { leakedPart } from "../support/leaks.ts";

Deno.test("submit: a platform that echoes its key in an error body: masked in the answer and the event", async () => {
  const r = await rig(BEFORE_GC);
  try {
    await portfolio(r.s);
    await step(r.s, DAY, "aggregate");
    const key = r.sim.apiKey;
    r.sim.failNext(400, JSON.stringify({ error: "bad request", echo: { authorization: key } }));
    const sub = await step(r.s, DAY, "submit");
    assert.equal(sub.status, 502);
    const answer = JSON.stringify(sub.body);
    assert.match(answer, /refused the submission with 400/);
    assert.match(answer, /\*\*\*\*\*\*\*\*/, "the echoed key is replaced by the mask");
    assert.equal(leakedPart(answer, key), undefined, `answer leaks the platform key: ${answer}`);
    const events = JSON.stringify(await storedEvents(r.s.kv));
    assert.equal(leakedPart(events, key), undefined, "an event leaks the platform key");
  } finally {
    await r.close();
  }
});

Deno.test("submit: a secret that straddles the length limit of a quoted body is masked before the cut", async () => {
  const r = await rig(BEFORE_GC);
  try {
    await portfolio(r.s);
    await step(r.s, DAY, "aggregate");
    const key = r.sim.apiKey;
    // The quote of a foreign body is cut at 2,000 characters: the key starts 20 before the cut.
    r.sim.failNext(400, "x".repeat(1980) + key + "y".repeat(100));
    const sub = await step(r.s, DAY, "submit");
    assert.equal(sub.status, 502);
    const answer = JSON.stringify(sub.body);
    assert.equal(leakedPart(answer, key), undefined, `answer leaks part of the key: ${answer}`);
    const events = JSON.stringify(await storedEvents(r.s.kv));
    assert.equal(leakedPart(events, key), undefined, "an event leaks part of the platform key");
  } finally {
    await r.close();
  }
});

Deno.test("422: a body that does not parse is not quoted back; the answer names the position", async () => {
  const s = await startServer(env);
  try {
    const secret = "hunter2-really-long-password";
    const body = `{"sftp_password": "${secret}", oops}`;
    const r = await call(`${s.url}/v1/console/config`, { method: "PUT", headers: proc, body });
    assert.equal(r.status, 422);
    const [item] = (r.body as { detail: Record<string, unknown>[] }).detail;
    assert.deepEqual(item.loc, ["body"]);
    assert.equal(item.type, "json_invalid");
    assert.equal(item.input, null);
    const at = body.indexOf("oops");
    assert.deepEqual(item.ctx, { position: at, line: 1, column: at + 1 }, JSON.stringify(item));
    assert.match(String(item.msg), new RegExp(`at position ${at} \\(line 1, column ${at + 1}\\)`));
    assert.equal(leakedPart(JSON.stringify(r.body), secret), undefined);
    assert.equal(leakedPart(JSON.stringify(await storedEvents(s.kv)), secret), undefined);
  } finally {
    await s.close();
  }
});

Deno.test("422: an unknown field is named without its value; a secret field's value is never quoted", async () => {
  const s = await startServer(env);
  try {
    const secret = "hunter2-really-long-password";
    const put = (body: unknown) =>
      call(`${s.url}/v1/console/config`, {
        method: "PUT",
        headers: proc,
        body: JSON.stringify(body),
      });
    // A misspelling of a secret field.
    const typo = await put({ sftp_pasword: secret });
    assert.equal(typo.status, 422);
    const [t] = (typo.body as { detail: Record<string, unknown>[] }).detail;
    assert.deepEqual([t.loc, t.type, t.input], [
      ["body", "sftp_pasword"],
      "extra_forbidden",
      null,
    ]);
    // A secret field with a wrong value: the item keeps its shape, input null.
    const wrong = await put({ market_platform_api_key: "short" });
    const [w] = (wrong.body as { detail: Record<string, unknown>[] }).detail;
    assert.deepEqual([w.loc, w.input], [["body", "market_platform_api_key"], null]);
    // Authentication settings are refused without quoting.
    const auth = await put({ process_api_keys: secret });
    const [a] = (auth.body as { detail: Record<string, unknown>[] }).detail;
    assert.deepEqual([a.type, a.input], ["forbidden_field", null]);
    for (const r of [typo, wrong, auth]) {
      assert.equal(leakedPart(JSON.stringify(r.body), secret), undefined);
      assert.equal(leakedPart(JSON.stringify(r.body), "short"), undefined);
    }
  } finally {
    await s.close();
  }
});

Deno.test("third-party secrets need at least 8 characters (so they can always be masked)", async () => {
  const s = await startServer(env);
  try {
    const r = await call(`${s.url}/v1/console/config`, {
      method: "PUT",
      headers: proc,
      body: JSON.stringify({ sftp_password: "abcde" }),
    });
    assert.equal(r.status, 422);
    const [item] = (r.body as { detail: Record<string, unknown>[] }).detail;
    assert.deepEqual([item.loc, item.type, item.input], [
      ["body", "sftp_password"],
      "value_error.too_small",
      null,
    ]);
  } finally {
    await s.close();
  }
});

Deno.test("our own API key quoted in any answer is masked, whole and in part", async () => {
  const s = await startServer(env);
  try {
    // A caller pastes the process key (and a part of it) into fields that echo their input.
    const part = PROC.slice(3, 15);
    const r = await call(`${s.url}/v1/forecasts`, {
      method: "POST",
      headers: proc,
      body: JSON.stringify({ market_location_id: PROC, delivery_day: part, values: [1] }),
    });
    assert.equal(r.status, 422);
    const answer = JSON.stringify(r.body);
    assert.equal(leakedPart(answer, PROC), undefined, answer);
    assert.match(answer, /\*\*\*\*\*\*\*\*/);
  } finally {
    await s.close();
  }
});
