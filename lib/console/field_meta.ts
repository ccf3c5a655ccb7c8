/**
 * Server side: how the config editor presents each runtime field (docs/architecture.md, "Runtime configuration"), derived from the
 * field's zod schema through its JSON Schema, so a new field in `lib/config/fields.ts` appears
 * in the console without touching it. Metadata only; values are fetched with the key.
 * @module
 */
import { z } from "zod";
import { CONFIG_FIELDS, FIELD_NAMES, type FieldDef } from "../config/fields.ts";
import type { FieldMeta } from "./types.ts";

/** Metadata of every configurable field, in display order. */
export function fieldMeta(): FieldMeta[] {
  return FIELD_NAMES.map((name) => {
    const def: FieldDef = CONFIG_FIELDS[name];
    const base = { name, env: def.env, description: def.description };
    if (def.secret) {
      return { ...base, kind: "secret", ...(/private_key/.test(name) ? { multiline: true } : {}) };
    }
    const js = z.toJSONSchema(def.schema, { unrepresentable: "any", io: "input" }) as {
      type?: string;
      enum?: unknown[];
    };
    if (Array.isArray(js.enum)) return { ...base, kind: "enum", options: js.enum.map(String) };
    if (js.type === "integer" || js.type === "number") return { ...base, kind: "number" };
    if (js.type === "array") return { ...base, kind: "list" };
    return { ...base, kind: "text" };
  });
}
