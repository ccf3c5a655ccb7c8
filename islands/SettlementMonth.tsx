/**
 * Island: the month after delivery (docs/console_after_delivery.md), the answer to "how did we
 * do in March": `GET /v1/settlement/months/{YYYY-MM}` (`lib/wire/settlement.ts`) as one sentence
 * over the month and a table of days × control areas, each cell the imbalance cost in EUR with
 * the short and long energy in MWh, totals per day and per area. Starts at the current month
 * (Berlin), read when the operator asks ("Show November 2026"); buttons go a month back and
 * forth. Choosing a day opens its after-delivery view
 * ({@link AfterDelivery}) below the table. A 404 or an empty month is a plain sentence.
 * @module
 */
import { useSignal, useSignalEffect } from "@preact/signals";
import { StatusBadge } from "../components/SettlementSummary.tsx";
import { ApiError } from "../lib/console/api.ts";
import { berlinDate, weekdayDate } from "../lib/console/day_texts.ts";
import { useEffect } from "preact/hooks";
import { api, apiKey, feed, isRefusal, now, today } from "../lib/console/session.ts";
import { revealSection } from "../lib/console/focus.ts";
import {
  addMonths,
  type CellSum,
  monthGrid,
  monthGroups,
  monthStatus,
} from "../lib/console/settlement_month.ts";
import {
  count,
  formatNumber,
  monthWords,
  type TotalsFormat,
  totalsWords,
} from "../lib/console/settlement_texts.ts";
import { browserLocale, energyTable, money, moneyTable } from "../lib/console/format.ts";
import type { MonthSettlement } from "../lib/wire/settlement.ts";
import { AfterDelivery, changesSettlement } from "./AfterDelivery.tsx";

/** What the month shows: loading, the month, "none", or a refusal in words. */
export type MonthLoad =
  | { kind: "loading" }
  | { kind: "ok"; body: MonthSettlement }
  | { kind: "none" }
  | { kind: "error"; text: string };

/** The path of a month's settlement. */
export const monthPath = (month: string) => `/v1/settlement/months/${month}`;

/**
 * One cell: cost, then short and long energy; "—" where the day has no settlement, "no actuals
 * yet" where nothing is measured (its 0 EUR would be no result).
 */
function Cell({ sum, f, label }: { sum: CellSum | null; f: TotalsFormat; label: string }) {
  if (!sum) return <td data-label={label} class="month-cell muted">—</td>;
  if (sum.measured === 0) {
    return <td data-label={label} class="month-cell month-none muted">no actuals yet</td>;
  }
  return (
    <td data-label={label} class="month-cell">
      <span class="month-cost">{f.cost(sum.cost_eur)}</span>
      <span class="month-energy muted">
        {f.short(sum.short_mwh)} short · {f.long(sum.long_mwh)} long
      </span>
      {sum.status === "provisional" && <span class="month-prov">provisional</span>}
    </td>
  );
}

/** Props of {@link MonthView}. */
export interface MonthViewProps {
  month: string;
  load: MonthLoad;
  locale: string;
  /** The chosen day, or `null`. */
  selected: string | null;
  /** Berlin date `YYYY-MM-DD` (today): only days before it are shown; default all. */
  before?: string;
  onSelect?: (day: string) => void;
}

/** The month's sentence and table: pure, rendered by the island and by the tests. */
export function MonthView({ month, load, locale, selected, onSelect, before }: MonthViewProps) {
  if (load.kind === "loading") return <p class="placeholder">Reading {monthWords(month)}…</p>;
  if (load.kind === "error") return <p class="error" role="alert">{load.text}</p>;
  const grid = load.kind === "ok" ? monthGrid(load.body, before) : null;
  if (load.kind === "none" || !grid || grid.rows.length === 0) {
    return (
      <p class="placeholder settlement-none">
        No settlement for {monthWords(month)}{" "}
        yet: it appears when actuals and imbalance prices for its days arrive.
      </p>
    );
  }
  const m = load.body;
  const settled = grid.rows.filter((r) => r.total.measured > 0);
  const provisional = settled.filter((r) => r.total.status === "provisional").length;
  const waiting = grid.rows.length - settled.length;
  const names = m.areas.map((a) => a.name || a.control_area);
  // Every figure of the table in one unit and with the decimals that make each day's, each
  // area's and the month's parts add up to their totals on screen (docs/console.md, "Numbers").
  const groups = monthGroups(grid, m.areas.map((a) => a.control_area), m.totals);
  const f: TotalsFormat = {
    short: energyTable(groups.short, locale),
    long: energyTable(groups.long, locale),
    cost: moneyTable(groups.cost, locale),
    dayAhead: (v) => money(v, locale),
  };
  return (
    <>
      <p class="settlement-sentence settlement-month-sentence">
        {monthWords(month)} in{" "}
        {m.areas.length === 1 ? names[0] : `all ${formatNumber(m.areas.length, 0, locale)} areas`}:
        {" "}
        {totalsWords(m.totals, locale, f)}.{" "}
        <span class="muted">
          {count(settled.length, "day", "days", locale)} settled
          {provisional ? `, ${formatNumber(provisional, 0, locale)} of them provisional` : ""}
          {waiting ? `; ${count(waiting, "day", "days", locale)} without actuals yet` : ""}.
        </span>
      </p>
      <div class="table-wrap month-wrap">
        <table class="month-table">
          <caption class="visually-hidden">
            Imbalance cost (EUR) and energy (MWh) per day and control area, {monthWords(month)}
          </caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {m.areas.map((a, k) => (
                <th key={a.control_area} scope="col" title={a.control_area}>{names[k]}</th>
              ))}
              <th scope="col">Day total</th>
            </tr>
          </thead>
          <tbody>
            {grid.rows.map((r) => (
              <tr key={r.delivery_day} data-day={r.delivery_day}>
                <th scope="row">
                  <button
                    type="button"
                    class="linklike"
                    aria-pressed={selected === r.delivery_day}
                    onClick={() => onSelect?.(r.delivery_day)}
                  >
                    {weekdayDate(r.delivery_day)}
                  </button>
                </th>
                {m.areas.map((a, k) => {
                  const c = r.cells[a.control_area];
                  return (
                    <Cell
                      key={a.control_area}
                      label={names[k]}
                      f={f}
                      sum={c
                        ? { ...c, cells: 1, measured: c.actual_quarter_hours > 0 ? 1 : 0 }
                        : null}
                    />
                  );
                })}
                <Cell label="Day total" f={f} sum={r.total} />
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Month</th>
              {m.areas.map((a, k) => (
                <Cell
                  key={a.control_area}
                  label={names[k]}
                  f={f}
                  sum={grid.areaTotals[a.control_area] ?? null}
                />
              ))}
              <td data-label="Month total" class="month-cell">
                <span class="month-cost">{f.cost(m.totals.cost_eur)}</span>
                <span class="month-energy muted">
                  day-ahead alone: {money(m.totals.day_ahead_cost_eur, locale)}
                </span>
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
    </>
  );
}

/** The island. */
export function SettlementMonth() {
  const month = useSignal(berlinDate(now.peek()).slice(0, 7));
  const load = useSignal<MonthLoad>({ kind: "loading" });
  const selected = useSignal<string | null>(null);
  // Read when the operator asks (a button), not with the page: the first load stays as it was,
  // and a service without settlement says nothing in the browser's log until then.
  const wanted = useSignal(false);
  // Read again shortly after a settlement input is stored (live events), like a day's view.
  const tick = useSignal(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = feed.subscribe((batch, source) => {
      if (source !== "live" || !batch.some((e) => changesSettlement(e))) return;
      clearTimeout(timer);
      timer = setTimeout(() => tick.value++, 800);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);
  // Re-rendered when the date changes, not with every tick of the clock.
  const current = today.value && berlinDate(now.peek()).slice(0, 7);

  useSignalEffect(() => {
    const key = apiKey.value;
    const m = month.value;
    void tick.value;
    if (!key || !wanted.value) return;
    let live = true;
    // A re-read of the same month keeps the table in place until the new answer is there.
    const shown = load.peek();
    if (shown.kind !== "ok" || shown.body.month !== m) load.value = { kind: "loading" };
    api<MonthSettlement>("GET", monthPath(m)).then(
      (body) => live && (load.value = { kind: "ok", body }),
      (err) => {
        if (!live) return;
        if (err instanceof ApiError && err.status === 404) load.value = { kind: "none" };
        else if (isRefusal(err)) {
          load.value = { kind: "error", text: "Refused: see the message at the top." };
        } else {
          load.value = {
            kind: "error",
            text: `The settlement of ${monthWords(m)} could not be read: ${
              err instanceof ApiError ? err.detail : String(err)
            }`,
          };
        }
      },
    );
    return () => {
      live = false;
    };
  });

  if (!apiKey.value) {
    return <p class="placeholder">Enter the process key to see the settlement after delivery.</p>;
  }
  const go = (n: number) => {
    month.value = addMonths(month.peek(), n);
    selected.value = null;
    wanted.value = true;
  };
  const body = load.value.kind === "ok" ? load.value.body : null;
  // The days after delivery (the service lists today's and tomorrow's schedules too).
  const before = berlinDate(now.peek());
  const past = body?.cells.filter((c) => c.delivery_day < before) ?? [];
  return (
    <div class="settlement-month">
      <div class="toolbar month-nav">
        <button type="button" class="btn" onClick={() => go(-1)}>
          ‹ {monthWords(addMonths(month.value, -1))}
        </button>
        <strong class="month-name" aria-live="polite">{monthWords(month.value)}</strong>
        {past.length > 0 && <StatusBadge status={monthStatus(month.value, past, before)} />}
        <button
          type="button"
          class="btn"
          disabled={month.value >= current}
          onClick={() => go(1)}
        >
          {monthWords(addMonths(month.value, 1))} ›
        </button>
      </div>
      {!wanted.value && (
        <p>
          <button type="button" class="btn" onClick={() => wanted.value = true}>
            Show {monthWords(month.value)}
          </button>{" "}
          <span class="muted">
            imbalance cost per day and control area;{" "}
            <a
              class="hint-link"
              href="#past-days"
              onClick={(e) => {
                // The past days above the delivery days (components/PastDays.tsx).
                e.preventDefault();
                revealSection("past-days");
              }}
            >
              a past day in the delivery days
            </a>{" "}
            shows its quarter-hours
          </span>
        </p>
      )}
      {wanted.value && (
        <MonthView
          month={month.value}
          load={load.value}
          locale={browserLocale()}
          selected={selected.value}
          before={before}
          onSelect={(d) => selected.value = selected.peek() === d ? null : d}
        />
      )}
      {selected.value && <AfterDelivery day={selected.value} />}
    </div>
  );
}
