/**
 * Wire shape of the runtime configuration as read through the console (docs/architecture.md,
 * "Runtime configuration"): every field with its effective value, where it comes from, and
 * whether it is a secret (then the value is `"********"` or `null`, never the secret). One zod
 * schema for the route, the OpenAPI document and the browser's type.
 * @module
 */
import { z } from "zod";

/** Where a field's effective value comes from. */
export const ConfigSource = z.enum(["runtime", "env", "default"]);
/** One of {@link ConfigSource}. */
export type ConfigSource = z.infer<typeof ConfigSource>;

/** One field as read through the console (secrets masked). */
export const FieldViewSchema = z.object({
  /** Effective value; for a secret `"********"` when set, `null` when not. */
  value: z.unknown(),
  source: ConfigSource,
  secret: z.boolean(),
  /** Environment variable that is the base. */
  env: z.string(),
  description: z.string(),
});
/** One field as read through the console. */
export type FieldView = z.infer<typeof FieldViewSchema>;

/** Body of config read, update and reset (`changed`: the fields whose override changed). */
export const ConfigBodySchema = z.object({
  fields: z.record(z.string(), FieldViewSchema),
  changed: z.array(z.string()).optional(),
});
/** Body of config read, update and reset. */
export type ConfigBody = z.infer<typeof ConfigBodySchema>;
