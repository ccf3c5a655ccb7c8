/**
 * Island: the attention summary at the top of the console (docs/console.md, "Attention"). Shows
 * `attention` of the status the orchestrator panel loads (`status` in `lib/console/session.ts`:
 * one request for both), and asks for the status again shortly after every live event but the
 * audit ones (a step, a failure, a TSO answer, a start or stop); an item's link selects its day
 * in the delivery-day overview; a rejected answer file's "Seen" acknowledges it.
 * @module
 */
import { useEffect } from "preact/hooks";
import { AttentionSummary } from "../components/AttentionSummary.tsx";
import { requestFocus } from "../lib/console/focus.ts";
import { api, apiKey, feed, refreshStatus, status } from "../lib/console/session.ts";

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
  const items = status.value?.attention;
  return (
    <div class="attention-island">
      {apiKey.value && items && (
        <AttentionSummary items={items} onSelect={requestFocus} onAcknowledge={acknowledge} />
      )}
    </div>
  );
}
