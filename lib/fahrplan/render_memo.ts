/**
 * Schedule documents rendered once per content (docs/fahrplan.md): `GET
 * /v1/delivery-days/{day}/schedules/{control_area}` renders the same day, area, aggregate and
 * message version again on every call, and only the creation time (`createdAt`, UTC seconds)
 * differs. Building the XML costs 1–2.5 ms of the request thread (fast-xml-parser's builder,
 * 96 quarter-hours); under the mixed load of `bench/mixed.ts` the schedule route was the largest
 * single JavaScript cost of the request thread.
 *
 * The memo renders a document once with a placeholder creation time and keeps the text before and
 * after it; an answer is those two parts around the document's own `createdAt`. The result is the
 * text {@link renderSchedule} returns, byte for byte: the creation time is written unescaped (it
 * holds only digits, `-`, `:`, `T` and `Z`) and exactly once (checked; otherwise nothing is kept).
 * @module
 */
import type { ScheduleDocument } from "./document.ts";
import { renderSchedule } from "./render.ts";

/** The creation time the memo renders with; the same shape as every real one, and a valid `ESMP_DateTime` (the CIM schema checks it). */
const PLACEHOLDER = "1999-12-31T23:59:59Z";
const CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
/** Documents kept (days × areas × formats asked for lately); the oldest goes first. */
const MEMO_SIZE = 64;
const memo = new Map<string, [string, string] | null>();

/**
 * The document in `format`, as {@link renderSchedule} writes it, from the memo when a document of
 * the same content (all but `createdAt`) was rendered lately.
 * @throws what {@link renderSchedule} throws
 */
export function renderScheduleMemo(doc: ScheduleDocument, format: "ess" | "cim"): string {
  if (!CREATED_AT.test(doc.createdAt)) return renderSchedule(doc, format);
  const key = `${format}\n${JSON.stringify({ ...doc, createdAt: "" })}`;
  let parts = memo.get(key);
  if (parts === undefined) {
    const text = renderSchedule({ ...doc, createdAt: PLACEHOLDER }, format);
    const at = text.indexOf(PLACEHOLDER);
    parts = at >= 0 && text.indexOf(PLACEHOLDER, at + 1) < 0
      ? [text.slice(0, at), text.slice(at + PLACEHOLDER.length)]
      : null; // not exactly once: render every time
    if (memo.size >= MEMO_SIZE) memo.delete(memo.keys().next().value!);
    memo.set(key, parts);
  }
  return parts ? parts[0] + doc.createdAt + parts[1] : renderSchedule(doc, format);
}
