/**
 * The "after delivery" view of one past delivery day (docs/console_after_delivery.md), shown
 * under the past days of the delivery days when the operator selects one (components/PastDays.tsx)
 * and under a day of the month view ({@link SettlementMonth}). Reads
 * `GET /v1/delivery-days/{day}/settlement` (`lib/wire/settlement.ts`, shared with the attention
 * box's line about yesterday: `lib/console/settlement_reads.ts`) with the operator's key when the
 * day is chosen, and again shortly after a live event about actuals, imbalance prices or the
 * settlement. Shows the day's totals in one sentence over all areas, then per control area its
 * chart and summary ({@link SettlementArea}), and its post-delivery correction
 * ({@link PostDeliveryCorrection}: `GET /v1/delivery-days/{day}/post-delivery`, the TSO's window
 * and the proposal to set the schedule to the actual, sent with
 * `POST …/schedules/{area}/post-delivery` after a confirm in words).
 *
 * A 404 (no settlement for the day, or a service without the route) is a plain sentence, never a
 * broken view; another refusal says the service's sentence; 401/403/503 stay quiet (the key gate
 * says them).
 * @module
 */
import { useEffect, useId, useState } from "preact/hooks";
import { SettlementArea } from "../components/SettlementArea.tsx";
import { StatusBadge } from "../components/SettlementSummary.tsx";
import { PostDeliveryCorrection } from "../components/PostDeliveryCorrection.tsx";
import { ApiError } from "../lib/console/api.ts";
import { browserLocale, formatLocalFull, MARKET_ZONE } from "../lib/console/format.ts";
import { api, feed, now, today } from "../lib/console/session.ts";
import {
  anyActual,
  forgetSettlements,
  readDaySettlement,
  readSettlement,
  type SettlementLoad,
  settlementPath,
} from "../lib/console/settlement_reads.ts";
import { formatNumber, totalsFormat, totalsSentence } from "../lib/console/settlement_texts.ts";
import { weekdayDate } from "../lib/console/day_texts.ts";
import type { DaySettlement } from "../lib/wire/settlement.ts";
import type { CorrectionSent, PostDelivery } from "../lib/wire/post_delivery.ts";
import type { EventKind, EventRecord } from "../lib/wire/events.ts";

/**
 * The live event kinds after which a settlement is read again: exactly those the service appends
 * when a settlement input is stored (`lib/settlement/import.ts`, `lib/settlement/import_prices.ts`,
 * for the API and the inbox folders alike; docs/settlement.md). `settlement_input_rejected` stores
 * nothing, so it is not one.
 */
export const SETTLEMENT_EVENTS: ReadonlySet<EventKind> = new Set<EventKind>([
  "actuals_received",
  "imbalance_prices_received",
  "intraday_prices_received",
  "intraday_trades_received",
]);

/**
 * Whether `e` can change the settlement of `day`: a {@link SETTLEMENT_EVENTS} kind, and for
 * actuals of one day (`delivery_day` set) only that day; prices and actuals of several days name
 * no single day, so they count for every day.
 */
export function changesSettlement(e: Pick<EventRecord, "kind" | "delivery_day">, day?: string) {
  if (!SETTLEMENT_EVENTS.has(e.kind)) return false;
  return day === undefined || e.delivery_day === undefined || e.delivery_day === day;
}

/**
 * The live event kinds after which a day's post-delivery corrections are read again (with its
 * settlement: a correction the TSO rejects no longer counts): a correction sent, a TSO answer.
 */
export const CORRECTION_EVENTS: ReadonlySet<EventKind> = new Set<EventKind>([
  "post_delivery_correction_sent",
  "schedule_acknowledged",
  "schedule_confirmed",
  "schedule_rejected",
  "anomaly_reported",
]);

/** Whether `e` can change the corrections of `day` (an event of {@link CORRECTION_EVENTS} of it). */
export const changesCorrections = (e: Pick<EventRecord, "kind" | "delivery_day">, day: string) =>
  CORRECTION_EVENTS.has(e.kind) && e.delivery_day === day;

export { anyActual, readSettlement, type SettlementLoad, settlementPath };

/** Props of {@link AfterDeliveryView}. */
export interface AfterDeliveryViewProps {
  day: string;
  load: SettlementLoad;
  locale: string;
  /** The clock (ms), for "yesterday". */
  nowMs: number;
  /** Fixed chart width (tests). */
  width?: number;
  /** The day's post-delivery corrections (`null`/absent: not shown). */
  post?: PostDelivery | null;
  /** Sends the correction of an area from the actuals; resolves to a sentence. */
  onCorrect?: (area: string) => Promise<string>;
}

/** The view of one loaded (or not) day: pure, rendered by the island and by the tests. */
export function AfterDeliveryView(
  { day, load, locale, nowMs, width, post, onCorrect }: AfterDeliveryViewProps,
) {
  // Unique per instance: the same day can be open in the day list and in the month view.
  const uid = useId().replace(/[^A-Za-z0-9_-]/g, "_");
  const head = (
    <h3>
      After delivery {weekdayDate(day)} <span class="muted">· {day} · MW, MWh, EUR</span>
    </h3>
  );
  if (load.kind === "loading") {
    return (
      <div class="after-delivery">
        {head}
        <p class="placeholder">Reading the settlement…</p>
      </div>
    );
  }
  // The service settles a day with schedules but nothing measured as 0 MWh and 0 EUR: the
  // operator reads "no actuals yet", never a cost of nothing.
  if (load.kind === "none" || (load.kind === "ok" && !anyActual(load.body))) {
    return (
      <div class="after-delivery">
        {head}
        <p class="placeholder settlement-none">
          No actuals for this day yet: the imbalance and its cost appear when metered values for it
          arrive.
        </p>
      </div>
    );
  }
  if (load.kind === "error") {
    return (
      <div class="after-delivery">
        {head}
        <p class="error" role="alert">{load.text}</p>
      </div>
    );
  }
  const s = load.body;
  const n = s.areas.length;
  // The day's totals and its areas' written alike: the areas shown add up to the day shown.
  const format = totalsFormat(s.areas.map((a) => a.totals), s.totals, locale);
  return (
    <div class="after-delivery" data-day={day}>
      {head}
      <p class="settlement-sentence settlement-day">
        <StatusBadge status={s.status} />{" "}
        {n === 0 ? "No control area has a settlement for this day yet." : totalsSentence({
          day,
          where: n === 1
            ? s.areas[0].name || s.areas[0].control_area
            : `all ${formatNumber(n, 0, locale)} areas`,
          totals: s.totals,
          locale,
          nowMs,
          format,
        })}{" "}
        <span class="muted">
          {formatNumber(s.quarter_hours.length, 0, locale)} quarter-hours · computed{" "}
          {formatLocalFull(s.computed_at, MARKET_ZONE)} Berlin
        </span>
      </p>
      {s.areas.map((a) => (
        <SettlementArea
          key={a.control_area}
          area={a}
          quarterHours={s.quarter_hours}
          day={day}
          locale={locale}
          nowMs={nowMs}
          uid={uid}
          totals={n > 1}
          format={format}
          width={width}
        >
          {post?.areas.filter((p) => p.control_area === a.control_area).map((p) => (
            <PostDeliveryCorrection
              key={p.control_area}
              day={day}
              area={p}
              locale={locale}
              onCorrect={onCorrect && (() => onCorrect(p.control_area))}
            />
          ))}
        </SettlementArea>
      ))}
    </div>
  );
}

/**
 * Sends the correction of `area` on `day` from the actuals; the sentence of the answer, or an
 * error with the service's sentence.
 */
export async function sendCorrection(
  day: string,
  area: string,
  post: (path: string, body: unknown) => Promise<CorrectionSent>,
): Promise<string> {
  try {
    const r = await post(`/v1/delivery-days/${day}/schedules/${area}/post-delivery`, {
      from: "actuals",
    });
    return `Correction v${r.version} sent to ${r.tso_name} (${r.file}): ${r.changed_quarter_hours} quarter-hours set to the actual.`;
  } catch (err) {
    throw new Error(
      `The correction was not sent: ${err instanceof ApiError ? err.detail : String(err)}`,
    );
  }
}

/** The island part: loads `day`'s settlement and its corrections and shows them. */
export function AfterDelivery({ day }: { day: string }) {
  const [load, setLoad] = useState<{ day: string; value: SettlementLoad } | null>(null);
  const [post, setPost] = useState<{ day: string; value: PostDelivery | null } | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    readSettlement(day, (p) => readDaySettlement(day, () => api<DaySettlement>("GET", p)))
      .then((value) => live && setLoad({ day, value }))
      .catch(() =>
        live &&
        setLoad({ day, value: { kind: "error", text: "Refused: see the message at the top." } })
      );
    // A service without the route (404) or a refusal: no correction part, never a broken view.
    api<PostDelivery>("GET", `/v1/delivery-days/${day}/post-delivery`)
      .then(
        (value) => live && setPost({ day, value }),
        () => live && setPost({ day, value: null }),
      );
    return () => {
      live = false;
    };
  }, [day, tick]);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = feed.subscribe((batch, source) => {
      if (
        source !== "live" ||
        !batch.some((e) => changesSettlement(e, day) || changesCorrections(e, day))
      ) return;
      forgetSettlements();
      clearTimeout(timer);
      timer = setTimeout(() => setTick((t) => t + 1), 800);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [day]);
  // Re-rendered when the Berlin date changes ("yesterday"), not with every tick of the clock.
  void today.value;
  return (
    <AfterDeliveryView
      day={day}
      load={load?.day === day ? load.value : { kind: "loading" }}
      locale={browserLocale()}
      nowMs={now.peek()}
      post={post?.day === day ? post.value : null}
      onCorrect={async (area) => {
        const text = await sendCorrection(day, area, (p, b) => api<CorrectionSent>("POST", p, b));
        forgetSettlements();
        setTick((t) => t + 1);
        return text;
      }}
    />
  );
}
