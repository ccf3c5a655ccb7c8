/**
 * Runtime configuration (SPEC §2.3, §4 rule 3): console changes overlaid on the environment,
 * persisted in KV under `["config_overlay"]` so they survive restarts and are shared by replicas.
 * Removing the overlay reverts every field to its environment value (or default).
 * @module
 */
import { z } from "zod";
import { ValidationFailed, type ValidationItem } from "../http/errors.ts";
import { clipInput, zodIssuesToItems } from "../http/validation.ts";
import { retryKv } from "../store/kv.ts";
import type { Redactor } from "../store/redactor.ts";
import {
  CONFIG_FIELDS,
  type EffectiveConfig,
  FIELD_NAMES,
  type FieldDef,
  type FieldName,
  SECRET_FIELDS,
} from "./fields.ts";

const KEY: Deno.KvKey = ["config_overlay"];

/** Where a field's effective value comes from. */
export type ConfigSource = "runtime" | "env" | "default";

/** One field as read through the console (secrets masked). */
export interface FieldView {
  /** Effective value; for a secret `"********"` when set, `null` when not. */
  value: unknown;
  source: ConfigSource;
  secret: boolean;
  /** Environment variable that is the base. */
  env: string;
  description: string;
}

/** The readable config: every field by name. */
export interface ConfigView {
  fields: Record<FieldName, FieldView>;
}

/** Request body of a config update: each field optional; `null` reverts it to the environment. */
export const ConfigChanges = z.strictObject(
  Object.fromEntries(
    FIELD_NAMES.map((n) => [n, (CONFIG_FIELDS[n] as FieldDef).schema.nullable().optional()]),
  ) as Record<FieldName, z.ZodOptional<z.ZodNullable<z.ZodType>>>,
);

/** Matches names of settings that must never be changed through the console. */
const AUTH_FIELD = /api_?keys?$|^oidc|unauthenticated|rate_limit|max_request|secret|token/i;

/** Runtime configuration of one deployment. */
export class RuntimeConfig {
  #kv: Deno.Kv;
  #env: Partial<Record<FieldName, unknown>>;
  #redactor?: Redactor;

  /**
   * @param envValues the environment base (from `Settings.configEnv`)
   * @param redactor told every secret value this config holds (environment and overlay, also
   *   one another replica wrote) before anyone can read it, so the event log masks it
   */
  constructor(kv: Deno.Kv, envValues: Partial<Record<FieldName, unknown>>, redactor?: Redactor) {
    this.#kv = kv;
    this.#env = envValues;
    this.#redactor = redactor;
    this.#learnSecrets(envValues);
  }

  #learnSecrets(values: Partial<Record<FieldName, unknown>>): void {
    if (!this.#redactor) return;
    for (const n of SECRET_FIELDS) this.#redactor.add(values[n as FieldName]);
  }

  async #overlay(): Promise<Deno.KvEntryMaybe<Partial<Record<FieldName, unknown>>>> {
    const entry = await this.#kv.get<Partial<Record<FieldName, unknown>>>(KEY);
    if (entry.value) this.#learnSecrets(entry.value);
    return entry;
  }

  #resolve(overlay: Partial<Record<FieldName, unknown>>, name: FieldName) {
    if (name in overlay) return { value: overlay[name], source: "runtime" as const };
    if (name in this.#env) return { value: this.#env[name], source: "env" as const };
    return { value: CONFIG_FIELDS[name].default, source: "default" as const };
  }

  /** Effective values, secrets included: for the pipeline only, never for a response. */
  async effective(): Promise<EffectiveConfig> {
    const overlay = (await this.#overlay()).value ?? {};
    return Object.fromEntries(
      FIELD_NAMES.map((n) => [n, this.#resolve(overlay, n).value]),
    ) as EffectiveConfig;
  }

  /** The readable config with sources; secrets masked (DESIGN §4). */
  async view(): Promise<ConfigView> {
    const overlay = (await this.#overlay()).value ?? {};
    return this.#view(overlay);
  }

  #view(overlay: Partial<Record<FieldName, unknown>>): ConfigView {
    const fields = {} as Record<FieldName, FieldView>;
    for (const n of FIELD_NAMES) {
      const def: FieldDef = CONFIG_FIELDS[n];
      const { value, source } = this.#resolve(overlay, n);
      fields[n] = {
        value: def.secret ? (value === null || value === undefined ? null : "********") : value,
        source,
        secret: !!def.secret,
        env: def.env,
        description: def.description,
      };
    }
    return { fields };
  }

  /**
   * Applies a partial update atomically. `null` removes the field's override.
   * @param body the parsed JSON body
   * @returns the new view and the names of fields whose override changed
   * @throws {ValidationFailed} for a non-object, an unknown field, an authentication field, or a
   *   bad value; nothing is written then
   */
  async update(body: unknown): Promise<{ view: ConfigView; changed: FieldName[] }> {
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw new ValidationFailed([{
        loc: ["body"],
        msg: "expected a JSON object with the fields to change",
        type: "type_error.object",
        input: clipInput(body ?? null),
        ctx: {},
      }]);
    }
    const forbidden: ValidationItem[] = Object.keys(body)
      .filter((k) => !(k in CONFIG_FIELDS) && AUTH_FIELD.test(k))
      .map((k) => ({
        loc: ["body", k],
        msg: "API keys and authentication settings cannot be changed through the console; " +
          "set them in the environment",
        type: "forbidden_field",
        input: "********",
        ctx: {},
      }));
    const parsed = ConfigChanges.safeParse(body);
    const items = [
      ...forbidden,
      ...(parsed.success ? [] : zodIssuesToItems("body", parsed.error.issues, body, SECRET_FIELDS)
        .filter((i) => !forbidden.some((f) => f.loc[1] === i.loc[i.loc.length - 1]))),
    ];
    if (items.length || !parsed.success) throw new ValidationFailed(items);
    const changes = parsed.data as Partial<Record<FieldName, unknown>>;
    this.#learnSecrets(changes);
    return await retryKv("update config", async () => {
      const cur = await this.#overlay();
      const next = { ...(cur.value ?? {}) };
      const changed: FieldName[] = [];
      for (const [k, v] of Object.entries(changes) as [FieldName, unknown][]) {
        if (v === undefined) continue;
        const had = k in next;
        if (v === null) {
          if (had) {
            delete next[k];
            changed.push(k);
          }
        } else if (!had || JSON.stringify(next[k]) !== JSON.stringify(v)) {
          next[k] = v;
          changed.push(k);
        }
      }
      if (!changed.length) return { view: this.#view(next), changed };
      const r = await this.#kv.atomic().check(cur).set(KEY, next).commit();
      return r.ok ? { view: this.#view(next), changed } : undefined;
    });
  }

  /** Removes the whole overlay; returns the fields that had an override. */
  async reset(): Promise<FieldName[]> {
    return await retryKv("reset config", async () => {
      const cur = await this.#overlay();
      const fields = Object.keys(cur.value ?? {}) as FieldName[];
      const r = await this.#kv.atomic().check(cur).delete(KEY).commit();
      return r.ok ? fields : undefined;
    });
  }
}
