/**
 * What needs the operator, at the top of the console (docs/console_attention.md): the
 * `attention` items of `GET /v1/console/status` in words and colour, worst first; an item about a
 * day is a link that selects the day in the overview. The box takes the colour of the worst item.
 * Under its head it answers "is everything for today and tomorrow confirmed?" (the first thing a
 * phone shows).
 * @module
 */
import type { ComponentChildren } from "preact";
import type { AttentionItem } from "../lib/wire/attention.ts";
import { addDays, berlinDate } from "../lib/console/day_texts.ts";

/** Props of {@link AttentionSummary}. */
export interface AttentionSummaryProps {
  items: readonly AttentionItem[];
  /** Selects `day` in the overview and scrolls it into view. */
  onSelect: (day: string) => void;
  /** The operator has seen the rejected answer file `file` (a `rejected_answer` item). */
  onAcknowledge?: (file: string) => void;
  /** The clock, ms since the epoch (default: now): which days are today and tomorrow. */
  nowMs?: number;
  /** Shown under the answer line (yesterday's money, components/YesterdayLine.tsx). */
  after?: ComponentChildren;
}

/**
 * Where a day stands in the answer: every schedule confirmed (`ok`), an answer about it that
 * could not be read waits for the operator (`unread`, amber: it may say anything, a rejection
 * too), or not all confirmed yet (`open`).
 */
export type DayAnswer = "ok" | "unread" | "open";

/** The rejected answer files (`rejected_answer`) about `day` that wait for the operator. */
export const unreadAnswers = (items: readonly AttentionItem[], day: string) =>
  items.filter((i) => i.code === "rejected_answer" && i.delivery_day === day);

/**
 * The answer to "is everything for today and tomorrow confirmed?", from the one line of good
 * news (`all_confirmed` and the days it covers) and the answer files about either day that could
 * not be read: where each of the two stands.
 */
export function confirmationAnswer(
  items: readonly AttentionItem[],
  nowMs: number,
): { today: string; tomorrow: string; todayIs: DayAnswer; tomorrowIs: DayAnswer } {
  const today = berlinDate(nowMs);
  const tomorrow = addDays(today, 1);
  const good = items.find((i) => i.code === "all_confirmed");
  const covered = good ? (good.days ?? [good.delivery_day]) : [];
  const state = (day: string): DayAnswer =>
    unreadAnswers(items, day).length ? "unread" : covered.includes(day) ? "ok" : "open";
  return { today, tomorrow, todayIs: state(today), tomorrowIs: state(tomorrow) };
}

const ANSWER_WORDS: Record<DayAnswer, string> = {
  ok: "confirmed",
  open: "not all confirmed yet",
  unread: "an answer could not be read",
};

/**
 * The answer in words, "Today and tomorrow: every schedule confirmed." or "Today: confirmed ·
 * tomorrow: an answer could not be read." (green where confirmed, amber where an answer could not
 * be read); "Today" and "tomorrow" are links to their rows (the keyboard's way from the summary
 * to today's row).
 */
function Answer(
  { items, nowMs, onSelect }: {
    items: readonly AttentionItem[];
    nowMs: number;
    onSelect: (day: string) => void;
  },
) {
  const a = confirmationAnswer(items, nowMs);
  const link = (day: string, text: string) => (
    <a
      href={`#day-${day}`}
      onClick={(e) => {
        e.preventDefault();
        onSelect(day);
      }}
    >
      {text}
    </a>
  );
  const word = (is: DayAnswer) => (
    <span class={`answer-${is}`} data-answer={is}>{ANSWER_WORDS[is]}</span>
  );
  return (
    <p class="attention-answer">
      {a.todayIs === "ok" && a.tomorrowIs === "ok"
        ? (
          <>
            {link(a.today, "Today")} and {link(a.tomorrow, "tomorrow")}:{" "}
            <span class="answer-ok" data-answer="ok">every schedule confirmed</span>.
          </>
        )
        : (
          <>
            {link(a.today, "Today")}: {word(a.todayIs)} · {link(a.tomorrow, "tomorrow")}:{" "}
            {word(a.tomorrowIs)}.
          </>
        )}
    </p>
  );
}

const MARK: Record<AttentionItem["level"], string> = { error: "✕", warn: "!", info: "·", ok: "✓" };

/**
 * Keys that stay with an item while others come and go (not its position), so an element that
 * holds the focus is kept when the item before it leaves the list.
 */
function keysOf(items: readonly AttentionItem[]): string[] {
  const seen = new Map<string, number>();
  return items.map((i) => {
    const base = [
      i.code,
      i.delivery_day ?? "",
      i.control_area ?? i.control_areas?.join(",") ?? "",
      i.file ?? "",
    ].join("|");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n ? `${base}#${n}` : base;
  });
}

/**
 * Before a "Seen" item leaves the list, the focus goes to the next item's link (or the one
 * before it, or the attention box itself when it was the only one), never to the page's body
 * (docs/console.md, "Keyboard, phone and idle").
 */
function focusAfterSeen(button: HTMLElement): void {
  const li = button.closest("li");
  const other = (li?.nextElementSibling ?? li?.previousElementSibling) as HTMLElement | null;
  const target = other?.querySelector<HTMLElement>("a, button") ??
    button.closest<HTMLElement>("#attention");
  target?.focus();
}

/** The tone of the whole box: the worst level among the items (`none` without items). */
export function attentionTone(items: readonly AttentionItem[]): AttentionItem["level"] | "none" {
  for (const level of ["error", "warn", "info", "ok"] as const) {
    if (items.some((i) => i.level === level)) return level;
  }
  return "none";
}

/** The summary. */
export function AttentionSummary(
  { items, onSelect, onAcknowledge, nowMs, after }: AttentionSummaryProps,
) {
  const tone = attentionTone(items);
  const itemKeys = keysOf(items);
  const errors = items.filter((i) => i.level === "error").length;
  const warns = items.filter((i) => i.level === "warn").length;
  const head = errors
    ? `${errors} problem${errors === 1 ? "" : "s"} need${errors === 1 ? "s" : ""} you now`
    : warns
    ? `${warns} thing${warns === 1 ? "" : "s"} to check`
    : tone === "ok"
    ? "Nothing needs you"
    : "Nothing needs you right now";
  return (
    <div class={`attention attention-${tone}`} data-tone={tone} role="status" aria-live="polite">
      <p class="attention-head">{head}</p>
      {items.length > 0 && <Answer items={items} nowMs={nowMs ?? Date.now()} onSelect={onSelect} />}
      {after}
      {items.length > 0 && (
        <ul class="attention-list">
          {items.map((i, n) => (
            <li
              key={itemKeys[n]}
              class={`attention-item attention-${i.level}`}
              data-code={i.code}
              data-day={i.delivery_day ?? undefined}
            >
              <span class="attention-mark" aria-hidden="true">{MARK[i.level]}</span>
              {i.delivery_day
                ? (
                  <a
                    href={`#day-${i.delivery_day}`}
                    onClick={(e) => {
                      e.preventDefault();
                      onSelect(i.delivery_day!);
                    }}
                  >
                    {i.message}
                  </a>
                )
                : <span>{i.message}</span>}
              {i.file && onAcknowledge && (
                <button
                  type="button"
                  class="btn btn-small attention-ack"
                  aria-label={`Seen: acknowledge the rejected file ${i.file}`}
                  onClick={(e) => {
                    // The item goes once the status is read again: the focus moves on first,
                    // to the next item (or the one before, or the box), never to the page.
                    focusAfterSeen(e.currentTarget as HTMLElement);
                    onAcknowledge(i.file!);
                  }}
                >
                  Seen
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
