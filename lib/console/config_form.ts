/**
 * The config editor's logic without the UI (docs/architecture.md: "Runtime configuration", "Errors"): how a value is shown in
 * an input, which fields were changed, the partial-update body, and which 422 message belongs
 * to which field.
 *
 * @example
 * const body = changesBody(meta, drafts, view); // {sftp_port: 2222, active_control_areas: [...]}
 * const { byField, general } = errorsByField(err.items, meta);
 * @module
 */
import type { ConfigFieldView, FieldMeta, ValidationItem } from "./types.ts";

/** The text an input shows for a field's effective value (secrets: always empty). */
export function displayValue(meta: FieldMeta, view: ConfigFieldView | undefined): string {
  if (!view || meta.kind === "secret" || view.secret) return "";
  const v = view.value;
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map(String).join("\n");
  return String(v);
}

/** True when the draft differs from what the field holds (a secret: when anything is typed). */
export function isDirty(
  meta: FieldMeta,
  draft: string | undefined,
  view: ConfigFieldView | undefined,
): boolean {
  if (draft === undefined) return false;
  if (meta.kind === "secret") return draft !== "";
  return draft !== displayValue(meta, view);
}

/** The JSON value a draft stands for. Numbers that do not parse are sent as typed (→ 422). */
export function draftValue(meta: FieldMeta, draft: string): unknown {
  if (meta.kind === "number") {
    const t = draft.trim();
    return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : draft;
  }
  if (meta.kind === "list") return draft.split(/[\s,;]+/).filter(Boolean);
  if (meta.kind === "secret") return draft;
  return draft.trim();
}

/** The partial-update body: only the changed fields. */
export function changesBody(
  fields: FieldMeta[],
  drafts: Record<string, string>,
  view: Record<string, ConfigFieldView> | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const m of fields) {
    const d = drafts[m.name];
    if (isDirty(m, d, view?.[m.name])) body[m.name] = draftValue(m, d!);
  }
  return body;
}

/**
 * Sorts 422 items by the field they concern (`loc: ["body", <field>, …]`). List entries name
 * their position and value (`entry 2 ("…"): …`); items that concern no known field are general.
 */
export function errorsByField(
  items: ValidationItem[],
  fields: FieldMeta[],
): { byField: Record<string, string[]>; general: string[] } {
  const known = new Map(fields.map((f) => [f.name, f]));
  const byField: Record<string, string[]> = {};
  const general: string[] = [];
  for (const it of items) {
    const [where, name, index] = it.loc;
    const meta = typeof name === "string" ? known.get(name) : undefined;
    if (where !== "body" || !meta) {
      general.push(it.loc.length ? `${it.loc.join(".")}: ${it.msg}` : it.msg);
      continue;
    }
    let msg = it.msg;
    if (typeof index === "number") {
      const shown = meta.kind === "secret" || typeof it.input !== "string"
        ? ""
        : ` (“${it.input}”)`;
      msg = `entry ${index + 1}${shown}: ${it.msg}`;
    }
    (byField[meta.name] ??= []).push(msg);
  }
  return { byField, general };
}
