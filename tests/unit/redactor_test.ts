/**
 * The one redaction step (docs/access-control.md, "Secrets"): any part of a secret of 8 or more
 * characters is masked, in every form a text may carry it; masking comes before the cut; a JSON
 * answer stays valid JSON; the process log passes it too.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import { type LogLevel, ProcessLog } from "../../lib/log.ts";
import { MASK, Redactor } from "../../lib/store/redactor.ts";
import { leakedPart } from "../support/leaks.ts";

const KEY = "mp-key-Xy7-unique-0042-zzzzzzzz";

Deno.test("redactor: every part of 8 or more characters is masked, at any place", () => {
  const r = new Redactor([KEY]);
  for (
    const text of [
      `head ${KEY.slice(0, 8)} tail`,
      `head ${KEY.slice(5, 20)} tail`,
      `head ${KEY.slice(-9)}`,
      `${KEY}${KEY}`,
    ]
  ) {
    const out = r.text(text);
    assert.equal(leakedPart(out, KEY), undefined, out);
    assert.ok(out.includes(MASK), out);
  }
  // Seven characters of it are no secret; ordinary text stays as it is.
  assert.equal(r.text(`a ${KEY.slice(0, 7)} b`), `a ${KEY.slice(0, 7)} b`);
  assert.equal(r.text("nothing to see here at all"), "nothing to see here at all");
});

Deno.test("redactor: JSON-escaped and URL-encoded forms are masked too", () => {
  const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvAIBADANBgkqhkiG9w0BAQEFAASC\n-----END";
  const r = new Redactor([pem, "pass/word+with&specials"]);
  const json = JSON.stringify({ key: pem });
  assert.equal(leakedPart(r.text(json), "MIIEvAIBADANBgkqhkiG9w0BAQEFAASC"), undefined);
  const url = `/x?p=${encodeURIComponent("pass/word+with&specials")}`;
  assert.equal(r.text(url).includes("word%2Bwith"), false, r.text(url));
});

Deno.test("redactor: masked first, cut after — a secret across the cut leaves nothing", () => {
  const r = new Redactor([KEY]);
  const body = "x".repeat(1990) + KEY;
  const out = r.text(body, 2000);
  assert.equal(leakedPart(out, KEY), undefined);
  assert.ok(out.length <= 2001);
  assert.ok(out.endsWith(`${MASK}`) || out.endsWith("…"), out.slice(-20));
});

Deno.test("redactor: an answer's JSON with a secret stays valid JSON", () => {
  const r = new Redactor(['quo"te\\secret-0002']);
  const body = JSON.stringify({ detail: 'platform said: quo"te\\secret-0002 and more' });
  const out = r.answer(body, true);
  assert.deepEqual(JSON.parse(out), { detail: `platform said: ${MASK} and more` });
  const clean = JSON.stringify({ ok: true, n: 12345678 });
  assert.equal(r.answer(clean, true), clean, "a clean answer is returned as it is");
});

Deno.test("redactor: a secret added later is masked in a text that was clean before", () => {
  const r = new Redactor(["first-secret-00001"]);
  const text = `later ${KEY}`;
  assert.equal(r.text(text), text);
  r.add(KEY);
  assert.equal(r.text(text), `later ${MASK}`);
});

Deno.test("process log: a secret in a message, an exception and its cause never reaches a line", () => {
  const lines: [LogLevel, string][] = [];
  const r = new Redactor([KEY]);
  const log = new ProcessLog(r, new FakeClock(Date.parse("2026-11-23T10:00:00Z")), {
    sink: { write: (level, line) => lines.push([level, line]) },
  });
  const err = new Error(`platform echoed ${KEY}`, { cause: new Error(`part ${KEY.slice(2, 14)}`) });
  log.error("request_failed", `failed with ${KEY.slice(4)}`, err, { request_id: "r-1" });
  assert.equal(lines.length, 1);
  const [level, line] = lines[0];
  assert.equal(level, "error");
  assert.equal(leakedPart(line, KEY), undefined, line);
  const entry = JSON.parse(line);
  assert.deepEqual(
    [entry.ts, entry.level, entry.kind, entry.request_id],
    ["2026-11-23T10:00:00.000Z", "error", "request_failed", "r-1"],
  );
  assert.match(entry.error, /caused by: Error: part \*{8}/);
});

Deno.test("redactor: digits of a secret inside a JSON number are masked; field names stay", () => {
  const r = new Redactor(["ab12345678cd-secret", "my-delivery-pass"]);
  const out = JSON.parse(r.answer(JSON.stringify({ value: 9912345678, delivery_day: "x" }), true));
  assert.deepEqual(out, { value: `99${MASK}`, delivery_day: "x" });
  // The same secret part in a string value is masked.
  assert.equal(r.text("the delivery van"), `the ${MASK} van`);
});
