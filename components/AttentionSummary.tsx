/**
 * What needs the operator, at the top of the console (docs/console.md, "Attention"): the
 * `attention` items of `GET /v1/console/status` in words and colour, worst first; an item about a
 * day is a link that selects the day in the overview. The box takes the colour of the worst item.
 * Under its head it answers "is everything for today and tomorrow confirmed?" (the first thing a
 * phone shows).
 * @module
 */
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
}

/**
 * The answer to "is everything for today and tomorrow confirmed?", from the one line of good
 * news (`all_confirmed` and the days it covers): which of the two are confirmed.
 */
export function confirmationAnswer(
  items: readonly AttentionItem[],
  nowMs: number,
): { today: string; tomorrow: string; todayOk: boolean; tomorrowOk: boolean } {
  const today = berlinDate(nowMs);
  const tomorrow = addDays(today, 1);
  const good = items.find((i) => i.code === "all_confirmed");
  const covered = good ? (good.days ?? [good.delivery_day]) : [];
  return {
    today,
    tomorrow,
    todayOk: covered.includes(today),
    tomorrowOk: covered.includes(tomorrow),
  };
}

/**
 * The answer in words, "Today and tomorrow: every schedule confirmed." or "Today: confirmed ·
 * tomorrow: not all confirmed yet."; "Today" and "tomorrow" are links to their rows (the
 * keyboard's way from the summary to today's row).
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
  const word = (yes: boolean) => yes ? "confirmed" : "not all confirmed yet";
  return (
    <p class="attention-answer">
      {a.todayOk && a.tomorrowOk
        ? (
          <>
            {link(a.today, "Today")} and {link(a.tomorrow, "tomorrow")}: every schedule confirmed.
          </>
        )
        : (
          <>
            {link(a.today, "Today")}: {word(a.todayOk)} · {link(a.tomorrow, "tomorrow")}:{" "}
            {word(a.tomorrowOk)}.
          </>
        )}
    </p>
  );
}

const MARK: Record<AttentionItem["level"], string> = { error: "✕", warn: "!", info: "·", ok: "✓" };

/** The tone of the whole box: the worst level among the items (`none` without items). */
export function attentionTone(items: readonly AttentionItem[]): AttentionItem["level"] | "none" {
  for (const level of ["error", "warn", "info", "ok"] as const) {
    if (items.some((i) => i.level === level)) return level;
  }
  return "none";
}

/** The summary. */
export function AttentionSummary(
  { items, onSelect, onAcknowledge, nowMs }: AttentionSummaryProps,
) {
  const tone = attentionTone(items);
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
      {items.length > 0 && (
        <ul class="attention-list">
          {items.map((i, n) => (
            <li
              key={`${i.code}-${i.delivery_day}-${i.control_area ?? ""}-${n}`}
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
                  onClick={() => onAcknowledge(i.file!)}
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
