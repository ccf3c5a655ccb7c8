/**
 * Island: the attention summary at the top of the console (docs/console.md, "Attention"). Reads
 * `attention` from `GET /v1/console/status` when the key is set, every 30 s and shortly after
 * every event but the audit ones (a step, a failure, a TSO answer, a start or stop); an item's link selects its day in the delivery-day overview.
 * @module
 */
import { useSignal, useSignalEffect } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { AttentionSummary } from "../components/AttentionSummary.tsx";
import { ApiError } from "../lib/console/api.ts";
import { requestFocus } from "../lib/console/focus.ts";
import { api, apiKey, feed, isRefusal } from "../lib/console/session.ts";
import type { StatusBody } from "../lib/console/types.ts";
import type { AttentionItem } from "../lib/wire/attention.ts";

const AUDIT_KINDS = new Set(["api_call", "access_denied"]);

/** The island. */
export function Attention() {
  const items = useSignal<AttentionItem[] | null>(null);
  const error = useSignal<string | null>(null);
  const load = async () => {
    try {
      const s = await api<StatusBody>("GET", "/v1/console/status");
      items.value = s.attention ?? [];
      error.value = null;
    } catch (err) {
      if (isRefusal(err)) items.value = null;
      else error.value = err instanceof ApiError ? err.detail : String(err);
    }
  };
  useSignalEffect(() => {
    if (!apiKey.value) {
      items.value = null;
      return;
    }
    void load();
    const timer = setInterval(load, 30_000);
    return () => clearInterval(timer);
  });
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = feed.subscribe((batch) => {
      // Audit events (calls, refusals) change nothing the list is made of.
      if (batch.every((e) => AUDIT_KINDS.has(e.kind))) return;
      clearTimeout(timer);
      timer = setTimeout(load, 800);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, []);
  return (
    <div class="attention-island">
      {error.value && <p class="error" role="alert">Attention list not refreshed: {error.value}</p>}
      {apiKey.value && items.value && (
        <AttentionSummary items={items.value} onSelect={requestFocus} />
      )}
    </div>
  );
}
