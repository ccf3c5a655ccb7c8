/**
 * One row of the config editor: name, source badge (`runtime` when overridden in the console),
 * environment variable, the input, its description, and the 422 messages that belong to it.
 * Secrets are write-only: the row says "set" or "not set" and the input starts empty.
 * @module
 */
import type { TargetedEvent } from "preact";
import { displayValue, isDirty } from "../lib/console/config_form.ts";
import type { ConfigFieldView, FieldMeta } from "../lib/console/types.ts";
import { Badge } from "./Badge.tsx";

/** Props of {@link ConfigField}. */
export interface ConfigFieldProps {
  meta: FieldMeta;
  view: ConfigFieldView | undefined;
  draft: string | undefined;
  errors: string[] | undefined;
  disabled: boolean;
  onDraft: (value: string) => void;
  onRevert: () => void;
}

const SOURCE_TITLE = {
  runtime: "changed in the console; overrides the environment",
  env: "from the environment variable",
  default: "built-in default",
} as const;

/** One field. */
export function ConfigField(p: ConfigFieldProps) {
  const { meta, view } = p;
  const id = `cfg-${meta.name}`;
  const value = p.draft ?? displayValue(meta, view);
  const dirty = isDirty(meta, p.draft, view);
  const secretSet = view?.value !== null && view?.value !== undefined;
  const described = [`${id}-help`, p.errors?.length ? `${id}-err` : ""].filter(Boolean).join(" ");
  const common = {
    id,
    name: meta.name,
    disabled: p.disabled,
    "aria-describedby": described,
    "aria-invalid": p.errors?.length ? true : undefined,
  };
  const onInput = (e: TargetedEvent<HTMLInputElement | HTMLTextAreaElement>) =>
    p.onDraft(e.currentTarget.value);
  let input;
  if (meta.kind === "list" || meta.multiline) {
    input = (
      <textarea
        {...common}
        rows={Math.max(2, value.split("\n").length)}
        spellcheck={false}
        autocomplete="off"
        placeholder={meta.kind === "secret"
          ? (secretSet ? "set — paste to replace" : "not set — paste to set")
          : undefined}
        value={value}
        onInput={onInput}
      />
    );
  } else if (meta.kind === "enum") {
    input = (
      <select {...common} value={value} onChange={(e) => p.onDraft(e.currentTarget.value)}>
        {!(meta.options ?? []).includes(value) && <option value={value}>{value || "—"}</option>}
        {(meta.options ?? []).map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
    );
  } else if (meta.kind === "secret") {
    input = (
      <input
        {...common}
        type="password"
        autocomplete="new-password"
        spellcheck={false}
        placeholder={secretSet ? "set — type to replace" : "not set — type to set"}
        value={value}
        onInput={onInput}
      />
    );
  } else {
    input = (
      <input
        {...common}
        type="text"
        inputMode={meta.kind === "number" ? "numeric" : undefined}
        autocomplete="off"
        spellcheck={false}
        placeholder={view && view.value === null ? "unset" : undefined}
        value={value}
        onInput={onInput}
      />
    );
  }
  const cls = ["field", dirty ? "dirty" : "", p.errors?.length ? "invalid" : ""].join(" ").trim();
  return (
    <div class={cls} data-field={meta.name}>
      <div class="field-head">
        <label for={id} class="mono field-name">{meta.name}</label>
        {view && (
          <Badge
            tone={view.source === "runtime" ? "accent" : "neutral"}
            title={SOURCE_TITLE[view.source]}
          >
            {view.source}
          </Badge>
        )}
        {meta.kind === "secret" && view && (
          <Badge tone={secretSet ? "ok" : "neutral"} title="write-only: the value is never shown">
            {secretSet ? "set" : "not set"}
          </Badge>
        )}
        {dirty && <Badge tone="warn">edited</Badge>}
        <span class="mono muted env" title="environment variable (the base value)">{meta.env}</span>
        {view?.source === "runtime" && (
          <button
            type="button"
            class="btn btn-small"
            disabled={p.disabled}
            onClick={p.onRevert}
            aria-label={`Revert ${meta.name} to its environment value`}
          >
            Revert
          </button>
        )}
      </div>
      {view ? input : null}
      <p class="help" id={`${id}-help`}>{meta.description}</p>
      {p.errors?.length
        ? (
          <p class="field-error" id={`${id}-err`} role="alert">
            {p.errors.join(" · ")}
          </p>
        )
        : null}
    </div>
  );
}
