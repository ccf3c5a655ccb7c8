/**
 * The schedule route's render memo (lib/fahrplan/render_memo.ts): the text it answers is the one
 * the renderer writes, byte for byte, for ESS and CIM, for the same content at another creation
 * time, and for documents that differ in one quantity, version or day; a creation time that
 * does not have the usual shape is rendered as it is.
 */
import { DocumentSchemaInvalid } from "../../lib/domain/errors.ts";
import assert from "node:assert/strict";
import { buildSchedule, type ScheduleDocument } from "../../lib/fahrplan/document.ts";
import { renderSchedule } from "../../lib/fahrplan/render.ts";
import { renderScheduleMemo } from "../../lib/fahrplan/render_memo.ts";
import { scheduleInput } from "../support/fahrplan.ts";

const FORMATS = ["ess", "cim"] as const;

Deno.test("render memo: the same bytes as the renderer, also at another creation time", () => {
  for (const format of FORMATS) {
    const first = buildSchedule(scheduleInput("2027-03-28", 2));
    assert.equal(renderScheduleMemo(first, format), renderSchedule(first, format));
    // Same content, one second later: from the memo, with the new time in it, the old one gone.
    const later = buildSchedule({
      ...scheduleInput("2027-03-28", 2),
      createdAtMs: Date.UTC(2027, 2, 27, 9, 30, 16),
    });
    const text = renderScheduleMemo(later, format);
    assert.equal(text, renderSchedule(later, format));
    assert.ok(text.includes("2027-03-27T09:30:16Z"));
    assert.ok(!text.includes("2027-03-27T09:30:15Z"));
  }
});

Deno.test("render memo: a changed quantity, version or day is a new document", () => {
  const base = scheduleInput("2026-11-24");
  const docs: ScheduleDocument[] = [
    buildSchedule(base),
    buildSchedule({ ...base, mw: base.mw.map((v, i) => (i === 40 ? v + 0.5 : v)) }),
    buildSchedule({ ...base, messageVersion: 3 }),
    buildSchedule({ ...base, aggregateVersion: 8 }),
    buildSchedule(scheduleInput("2027-10-31")), // 100 quarter-hours
  ];
  for (const format of FORMATS) {
    const texts = docs.map((d) => renderScheduleMemo(d, format));
    texts.forEach((t, i) => assert.equal(t, renderSchedule(docs[i], format)));
    assert.equal(new Set(texts.slice(0, 3)).size, 3);
  }
});

Deno.test("render memo: an unusual creation time is rendered as it is (and CIM's schema refuses it)", () => {
  const doc = { ...buildSchedule(scheduleInput("2026-11-24")), createdAt: "2026-11-23T10:00Z" };
  assert.equal(renderScheduleMemo(doc, "ess"), renderSchedule(doc, "ess"));
  // ESMP_DateTime has seconds: the memo does not hide the schema's refusal.
  assert.throws(() => renderScheduleMemo(doc, "cim"), (err: Error) => {
    assert.ok(err instanceof DocumentSchemaInvalid);
    assert.match(err.message, /element createdDateTime: '2026-11-23T10:00Z' is not a valid value/);
    return true;
  });
});
