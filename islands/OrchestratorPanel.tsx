/**
 * Island: the status pill (orchestrator `running`/`stopped`), start/stop with a confirmation
 * that states the consequence (docs/orchestrator.md), the service version and its security posture
 * (docs/architecture.md, "Console API"). Refreshes every 30 s, on every live start/stop event
 * and at once when another island asks (`refreshStatus()`, e.g. after a manual pass). The answer
 * is shared (`status` of the session): its `manual_actions` decide the other islands' buttons.
 * @module
 */
import { useComputed, useSignal, useSignalEffect } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { Badge } from "../components/Badge.tsx";
import { ConfirmButton } from "../components/ConfirmButton.tsx";
import { LocalTime } from "../components/LocalTime.tsx";
import { ApiError } from "../lib/console/api.ts";
import { formatBytes } from "../lib/console/format.ts";
import { connectionLostText, nextPassText } from "../lib/console/connection.ts";
import { passHealth } from "../lib/console/pass_health.ts";
import {
  api,
  apiKey,
  connectionLostSince,
  feed,
  isRefusal,
  now,
  status,
  statusRefresh,
} from "../lib/console/session.ts";
import type { OrchestratorState, StatusBody } from "../lib/console/types.ts";

/** One line on the security posture, in words. */
export function Posture({ status }: { status: StatusBody }) {
  const s = status.security;
  const keys =
    `API keys: ${s.api_key_callers.process} process, ${s.api_key_callers.external} external`;
  return (
    <p class="posture" aria-label="Security posture">
      <span>v{status.version}</span>
      {s.unauthenticated_mode && (
        <Badge tone="error" title="ALLOW_UNAUTHENTICATED=true: every route is open">
          authentication OFF
        </Badge>
      )}
      {s.fail_closed && (
        <Badge tone="error" title="no API key and no OIDC issuer configured">fail-closed</Badge>
      )}
      <span>{keys}</span>
      <span title={s.oidc ? `audience ${s.oidc.audience}` : "OIDC_ISSUER unset"}>
        {s.oidc ? `OIDC: ${s.oidc.issuer}` : "OIDC: off"}
      </span>
      <span>
        {s.rate_limit.per_minute
          ? `rate limit ${s.rate_limit.per_minute}/min, burst ${s.rate_limit.burst}`
          : "rate limit off"}
      </span>
      <span>body ≤ {formatBytes(s.max_request_bytes)}</span>
      <span>KV: {status.storage.kv.replace("_", " ")}</span>
    </p>
  );
}

/** The orchestrator panel. */
export function OrchestratorPanel() {
  const error = useSignal<string | null>(null);
  const busy = useSignal(false);

  const load = async () => {
    try {
      status.value = await api<StatusBody>("GET", "/v1/console/status");
      error.value = null;
    } catch (err) {
      if (isRefusal(err)) status.value = null;
      error.value = isRefusal(err) ? null : err instanceof ApiError ? err.detail : String(err);
    }
  };

  useSignalEffect(() => {
    void statusRefresh.value; // read again when asked
    error.value = null;
    if (!apiKey.value) {
      status.value = null;
      return;
    }
    void load();
    const timer = setInterval(load, 30_000);
    return () => clearInterval(timer);
  });
  useEffect(() =>
    feed.subscribe((batch, source) => {
      if (source === "live" && batch.some((e) => e.kind.startsWith("orchestrator_"))) {
        void load();
      }
    }), []);

  const toggle = async (verb: "start" | "stop") => {
    busy.value = true;
    try {
      const next = await api<OrchestratorState>("POST", `/v1/console/${verb}`);
      if (status.value) {
        status.value = {
          ...status.value,
          orchestrator: { ...status.value.orchestrator, ...next },
        };
      }
      error.value = null;
    } catch (err) {
      error.value = err instanceof ApiError ? `Could not ${verb}: ${err.detail}` : String(err);
    } finally {
      busy.value = false;
    }
  };

  const st = status.value;
  const o = st?.orchestrator;
  const state = o?.state ?? "unknown";
  const lostSince = apiKey.value ? connectionLostSince.value : null;
  // The clock is read through the texts it decides: the panel is drawn again when one of them
  // changes, not at every tick of the clock (docs/console.md, "Idle").
  const timed = useComputed(() => {
    const o = status.value?.orchestrator;
    const lost = (apiKey.value ? connectionLostSince.value : null) !== null;
    return JSON.stringify([
      o ? passHealth(o, now.value) : null,
      o?.next_pass_at ? nextPassText(o.next_pass_at, now.value, lost) : null,
    ]);
  });
  const [healthNow, nextNow] = JSON.parse(timed.value) as [
    ReturnType<typeof passHealth> | null,
    ReturnType<typeof nextPassText> | null,
  ];
  const health = healthNow ?? undefined;
  // Lost: grey whatever the last answer said; the note keeps what was last known.
  const tone = lostSince !== null
    ? "lost"
    : health && health.tone !== "stopped"
    ? health.tone
    : state;
  const next = nextNow ?? undefined;
  return (
    <div class="orch">
      <div class="orch-row">
        <span
          class={`pill pill-${tone}`}
          role="status"
          aria-live="polite"
          data-state={state}
          data-health={lostSince !== null ? "lost" : health?.tone ?? "unknown"}
        >
          <span class="dot" aria-hidden="true" />
          {lostSince !== null
            ? `Service: ${connectionLostText(lostSince)}`
            : state === "running"
            ? "Orchestrator running"
            : state === "stopped"
            ? "Orchestrator stopped"
            : "Orchestrator: unknown"}
          {lostSince === null && health?.text &&
            (health.tone === "amber" || health.tone === "red") &&
            ` · ${health.text}`}
        </span>
        <span class="pill-note">
          {lostSince !== null && o && `last known: orchestrator ${state} · `}
          {state === "running"
            ? "scheduled runs happen"
            : state === "stopped"
            ? "scheduled runs are skipped; manual steps stay available"
            : apiKey.value
            ? "state not available"
            : "enter the key to see the state"}
          {o?.changed_at && (
            <>
              {" · since "}
              <LocalTime iso={o.changed_at} />
              {o.changed_by ? ` by ${o.changed_by}` : ""}
            </>
          )}
          {o?.last_pass && (
            <>
              {" · last pass "}
              <LocalTime iso={o.last_pass.finished_at} />
              {` (${o.last_pass.by}): ${
                o.last_pass.outcome.replaceAll("_", " ")
              }, ${o.last_pass.steps_run} step${
                o.last_pass.steps_run === 1 ? "" : "s"
              } run, ${o.last_pass.steps_failed} failed${
                o.last_pass.files_rejected
                  ? `, ${o.last_pass.files_rejected} file${
                    o.last_pass.files_rejected === 1 ? "" : "s"
                  } rejected`
                  : ""
              }`}
            </>
          )}
          {o?.next_pass_at && next && (
            <>
              {" · "}
              <time
                dateTime={o.next_pass_at}
                class={next.overdue ? "overdue" : undefined}
                data-overdue={next.overdue ? "true" : undefined}
              >
                {next.text}
              </time>
            </>
          )}
        </span>
        {o && (
          <ConfirmButton
            key={state}
            name="orchestrator-toggle"
            class={state === "running" ? "btn" : "btn btn-primary"}
            disabled={busy.value}
            label={state === "running" ? "Stop orchestrator…" : "Start orchestrator…"}
            question={state === "running"
              ? "Stop the orchestrator? Scheduled runs will be skipped until it is started again. Manual steps stay available."
              : "Start the orchestrator? Scheduled runs will forecast, aggregate, publish and submit on their own."}
            confirmLabel={state === "running"
              ? "Yes, stop scheduled runs"
              : "Yes, start scheduled runs"}
            danger={state === "running"}
            onConfirm={() => toggle(state === "running" ? "stop" : "start")}
          />
        )}
      </div>
      {st && <Posture status={st} />}
      {error.value && <p class="error" role="alert">{error.value}</p>}
    </div>
  );
}
