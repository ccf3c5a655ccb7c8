/**
 * An answer about a day that could not be read (docs/console_attention.md, "A file thrown away"; issue 36,
 * item 9) and the day words of the attention list (item 10), without a browser: the good news is
 * not given for that day, the item says what to do and names the day as the operator says it, the
 * box's answer and the day's row turn amber; a missed TSO deadline names its days relative to now.
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import { AttentionSummary, confirmationAnswer } from "../../components/AttentionSummary.tsx";
import { DayRow } from "../../components/DayRow.tsx";
import { attention } from "../../lib/console/attention.ts";
import { lateFirstText } from "../../lib/console/intraday_texts.ts";
import type { RejectedAnswer } from "../../lib/fahrplan/rejected_answers.ts";
import { emptyDay, overview } from "../../lib/pipeline/day_state.ts";
import type { DayOverview } from "../../lib/wire/delivery_days.ts";
import { intradayEntry } from "../support/intraday_entry.ts";

// Tue 24 Nov 2026 19:47 Berlin.
const NOW = Date.parse("2026-11-24T18:47:00Z");
const TODAY = "2026-11-24";
const TOMORROW = "2026-11-25";
const AREAS = ["10YDE-RWENET---I", "10YDE-EON------1"];
const running = { state: "running" as const, failed_passes_in_a_row: 0 };

/** A day with both areas' v1 confirmed. */
function confirmedDay(day: string, over: Partial<DayOverview> = {}): DayOverview {
  const s = emptyDay(day);
  const step = { version: 1, at: "2026-11-23T13:00:00Z", by: "orchestrator", detail: {} };
  s.input_version = 1;
  s.steps = { forecast: step, aggregated: step, published: step, submitted: step };
  return {
    ...overview(s, NOW, "12:00"),
    tso_deadline: new Date(Date.parse(`${day}T00:00:00+01:00`) - 9.5 * 3_600_000).toISOString(),
    schedules: AREAS.map((a) =>
      intradayEntry(a, `${a}.xml`, { version: 1, phase: "day_ahead", frozen_before: null })
    ),
    ...over,
  };
}

const unreadable: RejectedAnswer = {
  file: "20261125_TPS_broken.xml",
  where: "the inbox /srv/inbox",
  reason: "Not a TSO answer: the XML is not well-formed (unclosed tag at line 1)",
  at: "2026-11-24T18:40:00Z",
  delivery_day: TOMORROW,
  control_area: null,
};

Deno.test("attention: an unreadable answer about tomorrow takes tomorrow out of the good news and says what to do", () => {
  const days = [confirmedDay(TODAY), confirmedDay(TOMORROW)];
  const before = attention({ days, orchestrator: running, nowMs: NOW });
  assert.deepEqual(before.map((i) => i.code), ["all_confirmed"]);
  assert.deepEqual(before[0].days, [TODAY, TOMORROW]);

  const items = attention({ days, orchestrator: running, nowMs: NOW, rejected: [unreadable] });
  assert.deepEqual(items.map((i) => `${i.code}:${i.level}`), [
    "rejected_answer:warn",
    "all_confirmed:ok",
  ]);
  assert.equal(items[1].delivery_day, TODAY, "today only");
  assert.equal(items[1].days, undefined);
  assert.equal(
    items[0].message,
    "The answer file 20261125_TPS_broken.xml about tomorrow (Wed 25 Nov) in the inbox /srv/inbox " +
      "was not imported at 19:40 Berlin: Not a TSO answer: the XML is not well-formed (unclosed " +
      "tag at line 1); moved to rejected/. Ask the TSO to resend its answer, or send a status " +
      "request from tomorrow's schedules; then press Seen.",
  );
  // With its area known, the TSO is named.
  const area = attention({
    days,
    orchestrator: running,
    nowMs: NOW,
    rejected: [{ ...unreadable, control_area: AREAS[0] }],
  });
  assert.match(area[0].message, /about tomorrow \(Wed 25 Nov\) in Amprion in the inbox/);
  assert.match(area[0].message, /Ask the TSO of Amprion to resend its answer/);
});

Deno.test("the box's answer and tomorrow's row turn amber while the answer waits unread", () => {
  const days = [confirmedDay(TODAY), confirmedDay(TOMORROW)];
  const items = attention({ days, orchestrator: running, nowMs: NOW, rejected: [unreadable] });
  assert.deepEqual(confirmationAnswer(items, NOW), {
    today: TODAY,
    tomorrow: TOMORROW,
    todayIs: "ok",
    tomorrowIs: "unread",
  });
  const html = renderToString(
    <AttentionSummary items={items} onSelect={() => {}} onAcknowledge={() => {}} nowMs={NOW} />,
  );
  const text = html.replace(/<[^>]+>/g, "");
  assert.match(text, /Today: confirmed · tomorrow: an answer could not be read\./);
  assert.match(html, /class="answer-unread" data-answer="unread">an answer could not be read/);
  assert.doesNotMatch(text, /every schedule confirmed/);

  const row = (unread: typeof items) =>
    renderToString(
      <table>
        <tbody>
          <DayRow
            day={days[1]}
            selected={false}
            onSelect={() => {}}
            actions={[]}
            busy={false}
            onAction={() => {}}
            nowMs={NOW}
            unread={unread}
          />
        </tbody>
      </table>,
    );
  const green = row([]);
  assert.match(green, /data-tso="ok"/);
  const amber = row(items.filter((i) => i.code === "rejected_answer"));
  assert.match(amber, /data-tso="warn"/);
  assert.match(amber, /class="tso-summary tso-line tso-warn"/);
  assert.match(
    amber,
    /answer file 20261125_TPS_broken\.xml could not be read — ask the TSO to resend, or send a status request/,
  );
});

Deno.test("a missed TSO deadline names its days relative to now, each once", () => {
  // Today's first version went out at 08:05 today; its deadline was 14:30 yesterday.
  const today = confirmedDay(TODAY, {
    tso_deadline: "2026-11-23T13:30:00Z",
    schedules: AREAS.map((a) =>
      intradayEntry(a, `${a}.xml`, { version: 1, first_sent_at: "2026-11-24T07:05:00Z" })
    ),
  });
  assert.equal(
    lateFirstText(today, NOW),
    "TSO deadline missed — due 14:30 Berlin yesterday, first version sent 08:05 Berlin today",
  );
  // Seen a week later, the days are dates.
  assert.equal(
    lateFirstText(today, NOW + 7 * 86_400_000),
    "TSO deadline missed — due 14:30 Berlin Mon 23 Nov, first version sent 08:05 Berlin Tue 24 Nov",
  );
  const items = attention({ days: [today], orchestrator: running, nowMs: NOW });
  assert.equal(
    items.find((i) => i.code === "deadline_missed")?.message,
    "Today (Tue 24 Nov): TSO deadline missed — due 14:30 Berlin yesterday, first version sent " +
      "08:05 Berlin today.",
  );
});
