/**
 * Island: the attention summary at the top of the console (docs/console_attention.md). Shows
 * `attention` of the status the orchestrator panel loads (`status` in `lib/console/session.ts`:
 * one request for both), and asks for the status again shortly after every live event but the
 * audit ones (a step, a failure, a TSO answer, a start or stop); an item's link selects its day
 * in the delivery-day overview; a rejected answer file's "Seen" acknowledges it. Under the answer
 * about today and tomorrow, yesterday's money in one line ({@link YesterdayLine}).
 * @module
 */
import { useSignal, useSignalEffect } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { AttentionSummary } from "../components/AttentionSummary.tsx";
import { YesterdayLine } from "../components/YesterdayLine.tsx";
import { addDays, berlinDate } from "../lib/console/day_texts.ts";
import { requestFocus } from "../lib/console/focus.ts";
import { browserLocale } from "../lib/console/format.ts";
import {
  forgetSettlements,
  readDaySettlement,
  readSettlement,
  type SettlementLoad,
} from "../lib/console/settlement_reads.ts";
import { api, apiKey, feed, now, refreshStatus, status, today } from "../lib/console/session.ts";
import type { DaySettlement } from "../lib/wire/settlement.ts";
import { changesSettlement } from "./AfterDelivery.tsx";

/**
 * Acknowledges a rejected answer file, then reads the status again: the item goes (also when
 * another operator acknowledged it first, 404; a failure to reach the service shows in the
 * connection state the status read updates).
 */
async function acknowledge(file: string): Promise<void> {
  await api("POST", `/v1/schedule-responses/rejected/${encodeURIComponent(file)}/acknowledge`)
    .catch(() => {});
  refreshStatus();
}

const AUDIT_KINDS = new Set(["api_call", "access_denied"]);

/**
 * Yesterday's settlement for the line under the answer: read when the key is set, when the Berlin
 * date changes, and again shortly after a live event about its actuals or prices.
 */
function useYesterday(): { day: string; load: SettlementLoad } | null {
  const load = useSignal<{ day: string; load: SettlementLoad } | null>(null);
  const tick = useSignal(0);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = feed.subscribe((batch, source) => {
      const day = addDays(berlinDate(now.peek()), -1);
      if (source !== "live" || !batch.some((e) => changesSettlement(e, day))) return;
      forgetSettlements();
      clearTimeout(timer);
      timer = setTimeout(() => tick.value++, 800);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);
  useSignalEffect(() => {
    const key = apiKey.value;
    void today.value;
    void tick.value;
    if (!key) return void (load.value = null);
    const day = addDays(berlinDate(now.peek()), -1);
    let live = true;
    readSettlement(day, (p) => readDaySettlement(day, () => api<DaySettlement>("GET", p)))
      .then((value) => live && (load.value = { day, load: value }))
      .catch(() => live && (load.value = null));
    return () => {
      live = false;
    };
  });
  return load.value;
}

/** The island. */
export function Attention() {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = feed.subscribe((batch, source) => {
      // The history loaded at start is what the first status read already saw; audit events
      // (calls, refusals) change nothing the list is made of.
      if (source !== "live" || batch.every((e) => AUDIT_KINDS.has(e.kind))) return;
      clearTimeout(timer);
      timer = setTimeout(refreshStatus, 800);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);
  const yesterday = useYesterday();
  const items = status.value?.attention;
  return (
    <div class="attention-island">
      {apiKey.value && items && (
        <AttentionSummary
          items={items}
          onSelect={requestFocus}
          onAcknowledge={acknowledge}
          after={yesterday && (
            <YesterdayLine
              day={yesterday.day}
              load={yesterday.load}
              locale={browserLocale()}
              onSelect={requestFocus}
            />
          )}
        />
      )}
    </div>
  );
}
