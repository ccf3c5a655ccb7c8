/**
 * Island: the orchestrator's pass history (docs/console.md, "Pass history"), newest first: when,
 * scheduled or by whom, how long, the outcome and the steps run and failed; opening a pass shows
 * per delivery day what ran, what failed and why, and what was not tried and why. Reads
 * `GET /v1/console/passes` once the status is known and again whenever the status reports a
 * newer last pass (after a manual pass at once, else within its 30 s poll); "Older passes" pages
 * back.
 * @module
 */
import { useSignal, useSignalEffect } from "@preact/signals";
import { Badge, type Tone } from "../components/Badge.tsx";
import { LocalTime } from "../components/LocalTime.tsx";
import { ApiError } from "../lib/console/api.ts";
import { api, apiKey, isRefusal, status } from "../lib/console/session.ts";
import type { PassPage, PassRecord } from "../lib/wire/pass_history.ts";

const PAGE = 20;
const TONE: Record<PassRecord["outcome"], Tone> = {
  ok: "ok",
  nothing_to_do: "neutral",
  partial: "warn",
  failed: "error",
};

/** `0.4 s`, `12 s`, `2 min 05 s`. */
export function formatDuration(s: number): string {
  if (s < 10) return `${Math.round(s * 10) / 10} s`;
  if (s < 60) return `${Math.round(s)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${String(Math.round(s % 60)).padStart(2, "0")} s`;
}

/** One pass: its summary line, and per day what happened when opened. */
export function PassEntry({ pass }: { pass: PassRecord }) {
  return (
    <li class="pass" data-outcome={pass.outcome} data-id={pass.id}>
      <details>
        <summary>
          <LocalTime iso={pass.started_at} />{" "}
          <span>{pass.trigger === "scheduled" ? "scheduled" : `manual, by ${pass.by}`}</span>
          {" · "}
          <span>{formatDuration(pass.duration_s)}</span>{" "}
          {pass.outcome === "nothing_to_do" && pass.rejected_files?.length
            ? <Badge tone="warn">no step to run</Badge>
            : <Badge tone={TONE[pass.outcome]}>{pass.outcome.replaceAll("_", " ")}</Badge>}{" "}
          <span class="muted">
            {pass.steps_run} step{pass.steps_run === 1 ? "" : "s"} run, {pass.steps_failed} failed
          </span>
          {(pass.rejected_files?.length ?? 0) > 0 && (
            <span class="warn">
              {`, ${pass.rejected_files!.length} file${
                pass.rejected_files!.length === 1 ? "" : "s"
              } rejected`}
            </span>
          )}
        </summary>
        {pass.rejected_files?.map((r) => (
          <p key={r.file} class="warn">
            The answer file {r.file} was moved to rejected/: {r.reason}
          </p>
        ))}
        {pass.error && <p class="error">The pass failed: {pass.error}</p>}
        {!pass.error && pass.days.length === 0 && !pass.rejected_files?.length && (
          <p class="muted">Nothing to do: every day within the horizon was up to date.</p>
        )}
        <ul class="pass-days">
          {pass.days.map((d) => (
            <li key={d.delivery_day}>
              <strong>{d.delivery_day}</strong>
              {d.ran.length > 0 && <span>{` ran ${d.ran.join(", ")}`}</span>}
              {d.failed && (
                <span class="error">{` · ${d.failed.step} failed: ${d.failed.error}`}</span>
              )}
              {d.skipped.map((s) => (
                <span key={s.step} class="muted">{` · ${s.step} ${s.reason}`}</span>
              ))}
            </li>
          ))}
        </ul>
      </details>
    </li>
  );
}

/** The pass history. */
export function PassHistory() {
  const passes = useSignal<PassRecord[] | null>(null);
  const next = useSignal<number | null>(null);
  const error = useSignal<string | null>(null);
  const loaded = useSignal<string | null>(null);

  const fetchPage = async (before?: number) => {
    try {
      const q = `limit=${PAGE}${before !== undefined ? `&before=${before}` : ""}`;
      const page = await api<PassPage>("GET", `/v1/console/passes?${q}`);
      passes.value = before !== undefined ? [...(passes.value ?? []), ...page.passes] : page.passes;
      next.value = page.next_before;
      error.value = null;
    } catch (err) {
      if (isRefusal(err)) passes.value = null;
      else error.value = err instanceof ApiError ? err.detail : String(err);
    }
  };

  // Once the status is known, and again when it names a newer last pass.
  useSignalEffect(() => {
    const key = apiKey.value;
    const st = status.value;
    if (!key || !st) {
      if (!key) passes.value = null;
      return;
    }
    const mark = `${key}\n${st.orchestrator.last_pass?.finished_at ?? "none"}`;
    if (loaded.peek() === mark) return;
    loaded.value = mark;
    void fetchPage();
  });

  const list = passes.value;
  return (
    <div class="passes">
      {error.value && <p class="error" role="alert">{error.value}</p>}
      {!apiKey.value && <p class="placeholder">Enter the process key to see the passes.</p>}
      {list && list.length === 0 && (
        <p class="placeholder">No pass yet: the orchestrator records each pass here.</p>
      )}
      {list && list.length > 0 && (
        <ol class="pass-list" aria-label="Passes, newest first">
          {list.map((p) => <PassEntry key={p.id} pass={p} />)}
        </ol>
      )}
      {next.value !== null && (
        <button
          type="button"
          class="btn btn-small"
          onClick={() => fetchPage(next.value!)}
        >
          Older passes
        </button>
      )}
    </div>
  );
}
