/**
 * Island: the runtime configuration (docs/architecture.md, "Runtime configuration"): every field with its effective value and
 * source, a `runtime` badge on console overrides, write-only secrets, 422 messages beside the
 * field they concern, revert one field (`null`) and revert all (`DELETE`). Reloads when another
 * operator changes the config (a `config_changed` event), keeping unsaved edits.
 * @module
 */
import { untracked, useSignal, useSignalEffect } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { ConfigField } from "../components/ConfigField.tsx";
import { ConfirmButton } from "../components/ConfirmButton.tsx";
import { ApiError } from "../lib/console/api.ts";
import { changesBody, errorsByField } from "../lib/console/config_form.ts";
import { api, apiKey, authProblem, feed, isRefusal } from "../lib/console/session.ts";
import type { ConfigBody, FieldMeta } from "../lib/console/types.ts";

/** Props: field metadata (names, kinds, descriptions) from the server; values are fetched. */
export interface ConfigEditorProps {
  fields: FieldMeta[];
}

function focusField(name: string) {
  const el = document.getElementById(`cfg-${name}`);
  el?.closest(".field")?.scrollIntoView({ block: "center" });
  el?.focus({ preventScroll: true });
}

/** The config editor. */
export function ConfigEditor({ fields }: ConfigEditorProps) {
  const view = useSignal<ConfigBody | null>(null);
  const drafts = useSignal<Record<string, string>>({});
  const errors = useSignal<Record<string, string[]>>({});
  const general = useSignal<string[]>([]);
  const note = useSignal<string | null>(null);
  const busy = useSignal(false);

  const load = async () => {
    try {
      view.value = await api<ConfigBody>("GET", "/v1/console/config");
    } catch (err) {
      if (isRefusal(err)) view.value = null;
      general.value = isRefusal(err) ? [] : [err instanceof ApiError ? err.detail : String(err)];
    }
  };
  useSignalEffect(() => {
    const key = apiKey.value;
    untracked(() => {
      note.value = null;
      general.value = [];
      errors.value = {};
    });
    if (!key) {
      view.value = null;
      return;
    }
    void load();
  });
  useEffect(() =>
    feed.subscribe((batch, source) => {
      // The history loaded at start is what `load` already read.
      if (source !== "live" || busy.peek()) return;
      if (batch.some((e) => e.kind === "config_changed")) void load();
    }), []);

  const send = async (
    method: "PUT" | "DELETE",
    body: Record<string, unknown> | undefined,
    done = "Saved",
  ) => {
    busy.value = true;
    note.value = null;
    try {
      const res = await api<ConfigBody>(method, "/v1/console/config", body);
      view.value = res;
      const sent = method === "DELETE" ? fields.map((f) => f.name) : Object.keys(body ?? {});
      const rest = { ...drafts.value };
      const errs = { ...errors.value };
      for (const n of sent) {
        delete rest[n];
        delete errs[n];
      }
      drafts.value = rest;
      errors.value = errs;
      general.value = [];
      const changed = res.changed ?? [];
      note.value = changed.length ? `${done}: ${changed.join(", ")}.` : "Nothing changed.";
    } catch (err) {
      if (err instanceof ApiError && err.items.length) {
        const sorted = errorsByField(err.items, fields);
        errors.value = sorted.byField;
        general.value = sorted.general;
        note.value = "Not saved: the service refused the change (see the marked fields).";
        const first = fields.find((f) => sorted.byField[f.name]);
        if (first) setTimeout(() => focusField(first.name), 0);
      } else if (!isRefusal(err)) {
        general.value = [err instanceof ApiError ? err.detail : String(err)];
      }
    } finally {
      busy.value = false;
    }
  };

  const current = view.value?.fields;
  const body = changesBody(fields, drafts.value, current);
  const dirtyCount = Object.keys(body).length;
  const disabled = !current || busy.value;
  const overrides = current ? Object.values(current).filter((f) => f.source === "runtime") : [];
  return (
    <form
      class="config"
      aria-label="Runtime configuration"
      onSubmit={(e) => {
        e.preventDefault();
        if (dirtyCount) void send("PUT", body);
      }}
    >
      <div class="toolbar">
        <button type="submit" class="btn btn-primary" disabled={disabled || !dirtyCount}>
          Save {dirtyCount ? `${dirtyCount} change${dirtyCount > 1 ? "s" : ""}` : "changes"}
        </button>
        <button
          type="button"
          class="btn"
          disabled={disabled || !Object.keys(drafts.value).length}
          onClick={() => {
            drafts.value = {};
            errors.value = {};
            general.value = [];
          }}
        >
          Discard edits
        </button>
        <ConfirmButton
          label="Revert all…"
          disabled={disabled || overrides.length === 0}
          question={`Revert all ${overrides.length} runtime override(s)? Every field goes back to its environment value.`}
          confirmLabel="Yes, revert all fields"
          danger
          onConfirm={() => send("DELETE", undefined, "Reverted")}
        />
        <span class="muted" role="status">{note.value}</span>
      </div>
      {general.value.length > 0 && <p class="error" role="alert">{general.value.join(" · ")}</p>}
      {!apiKey.value && <p class="placeholder">Enter the process key to load the configuration.</p>}
      {apiKey.value && !current && authProblem.value && (
        <p class="placeholder">Refused: see the message at the top.</p>
      )}
      {/* Refused: no list of fields without values (the message at the top says why). */}
      {!(apiKey.value && !current && authProblem.value) && (
        <div class="fields">
          {fields.map((m) => (
            <ConfigField
              key={m.name}
              meta={m}
              view={current?.[m.name]}
              draft={drafts.value[m.name]}
              errors={errors.value[m.name]}
              disabled={disabled}
              onDraft={(v) => drafts.value = { ...drafts.value, [m.name]: v }}
              onRevert={() => send("PUT", { [m.name]: null }, "Reverted")}
            />
          ))}
        </div>
      )}
    </form>
  );
}
