/**
 * The sentence of a `config_changed` event (docs/console.md, "Errors in words"): who changed
 * which field from what to what. A secret field never shows a value, only whether it was set,
 * replaced or removed.
 *
 * @example
 * changeSentence("ops", [{ field: "sftp_port", from: 22, to: 2222 }]);
 * // "ops changed the configuration: sftp_port 22 → 2222."
 * @module
 */
import type { FieldChange } from "./runtime_config.ts";
import { SECRET_FIELDS } from "./fields.ts";

const MAX_VALUE = 80;

/** A value as the sentence shows it: `unset`, a list joined with commas, clipped to 80 chars. */
function shown(v: unknown): string {
  if (v === null || v === undefined) return "unset";
  const text = Array.isArray(v) ? v.join(", ") || "none" : String(v);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

/** One field's change in words; a secret as "set", "replaced" or "removed" (never a value). */
export function fieldChangeText(c: FieldChange): string {
  if (SECRET_FIELDS.has(c.field)) {
    const had = c.from !== null && c.from !== undefined;
    const has = c.to !== null && c.to !== undefined;
    const what = had && has ? "replaced" : has ? "set" : "removed";
    return `${c.field} ${what} (secret, not shown)`;
  }
  return `${c.field} ${shown(c.from)} → ${shown(c.to)}`;
}

/**
 * `ops changed the configuration: outbox_dir ./data/outbox → /srv/outbox; sftp_password set
 * (secret, not shown).`
 * @param changes effective values before and after (secrets already masked as `"********"`)
 */
export function changeSentence(caller: string, changes: readonly FieldChange[]): string {
  return `${caller} changed the configuration: ${changes.map(fieldChangeText).join("; ")}.`;
}
