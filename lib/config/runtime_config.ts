/**
 * Runtime configuration (docs/architecture.md, "Runtime configuration"): console changes overlaid on the environment,
 * persisted in KV under `["config_overlay"]` so they survive restarts and are shared by replicas.
 * Removing the overlay reverts every field to its environment value (or default).
 *
 * The overlay is cached in memory ({@link CachedEntry}): a change through this instance is seen by
 * the next read at once; a change by another replica within the maximum age (1 s by default), or
 * at once where `kv.watch` reports it (Deno Deploy, KV Connect) after {@link RuntimeConfig.watch}.
 * @module
 */
import { z } from "zod";
import { type InputIssue, InvalidInput } from "../domain/errors.ts";
import { clipInput, zodIssuesToItems } from "../domain/issues.ts";
import { retryKv } from "../store/kv.ts";
import { CachedEntry } from "./cached_entry.ts";
import { checkWritableDir } from "../adapters/local_dir.ts";
import type { Redactor } from "../store/redactor.ts";
import {
  CONFIG_FIELDS,
  crossFieldProblems,
  type EffectiveConfig,
  FIELD_NAMES,
  type FieldDef,
  type FieldName,
  SECRET_FIELDS,
} from "./fields.ts";
import { KEYS } from "../store/keys.ts";
import type { FieldView } from "../wire/config.ts";

const KEY = KEYS.configOverlay;

export type { ConfigSource, FieldView } from "../wire/config.ts";

/** One changed field of a `config_changed` event: effective values, secrets as `"********"`. */
export interface FieldChange {
  field: FieldName;
  from: unknown;
  to: unknown;
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

type Overlay = Partial<Record<FieldName, unknown>>;

/** Options of a {@link RuntimeConfig}. */
export interface RuntimeConfigOptions {
  /** Longest time, in ms, another replica's change can go unseen (default 1,000). */
  maxAgeMs?: number;
}

/** Runtime configuration of one deployment. */
export class RuntimeConfig {
  #kv: Deno.Kv;
  #env: Overlay;
  #redactor?: Redactor;
  #overlayCache: CachedEntry<Overlay>;
  /** The effective values computed from one cached overlay entry (same object while unchanged). */
  #snapshot: { of: Deno.KvEntryMaybe<Overlay>; config: Readonly<EffectiveConfig> } | undefined;

  /**
   * @param envValues the environment base (from `Settings.configEnv`)
   * @param redactor told every secret value this config holds (environment and overlay, also
   *   one another replica wrote) before anyone can read it, so the event log masks it
   */
  constructor(
    kv: Deno.Kv,
    envValues: Overlay,
    redactor?: Redactor,
    opts: RuntimeConfigOptions = {},
  ) {
    this.#kv = kv;
    this.#env = envValues;
    this.#redactor = redactor;
    this.#learnSecrets(envValues);
    this.#overlayCache = new CachedEntry<Overlay>(kv, KEY, {
      maxAgeMs: opts.maxAgeMs,
      onRead: (value) => this.#learnSecrets(value),
    });
  }

  /**
   * Re-reads the overlay as soon as `kv.watch` reports a change (another instance on Deno
   * Deploy or KV Connect). Call {@link RuntimeConfig.close} before closing the store.
   */
  watch(): void {
    this.#overlayCache.watch();
  }

  /** Stops the watch; reads still work (from KV when the cache is old). */
  async close(): Promise<void> {
    await this.#overlayCache.close();
  }

  #learnSecrets(values: Overlay): void {
    if (!this.#redactor) return;
    for (const n of SECRET_FIELDS) this.#redactor.add(secretPart(values[n as FieldName]));
  }

  /** Fresh read of the overlay (for read-modify-write); also refreshes the cache. */
  #overlay(): Promise<Deno.KvEntryMaybe<Overlay>> {
    return this.#overlayCache.read();
  }

  #resolve(overlay: Overlay, name: FieldName) {
    if (name in overlay) return { value: overlay[name], source: "runtime" as const };
    if (name in this.#env) return { value: this.#env[name], source: "env" as const };
    return { value: CONFIG_FIELDS[name].default, source: "default" as const };
  }

  /**
   * Effective values, secrets included: for the pipeline only, never for a response. A new
   * object each call (the caller may change it); from the cached overlay (module doc).
   * @throws whatever `kv.get` throws when the cache is too old and KV cannot be read
   */
  async effective(): Promise<EffectiveConfig> {
    return { ...(await this.snapshot()) };
  }

  /**
   * Like {@link RuntimeConfig.effective}, but the same frozen object for as long as the overlay
   * is unchanged (cheap: no copy, and callers may memoise on its identity).
   * @throws whatever `kv.get` throws when the cache is too old and KV cannot be read
   */
  async snapshot(): Promise<Readonly<EffectiveConfig>> {
    return this.peekSnapshot() ?? this.#snapshotOf(await this.#overlayCache.get());
  }

  /**
   * The frozen effective values when the cache is young enough to serve them without a KV read,
   * else `undefined` (then await {@link RuntimeConfig.snapshot}).
   */
  peekSnapshot(): Readonly<EffectiveConfig> | undefined {
    const entry = this.#overlayCache.peek();
    return entry && this.#snapshotOf(entry);
  }

  #snapshotOf(entry: Deno.KvEntryMaybe<Overlay>): Readonly<EffectiveConfig> {
    if (this.#snapshot?.of === entry) return this.#snapshot.config;
    const overlay = entry.value ?? {};
    const config = Object.freeze(
      Object.fromEntries(FIELD_NAMES.map((n) => [n, this.#resolve(overlay, n).value])),
    ) as Readonly<EffectiveConfig>;
    this.#snapshot = { of: entry, config };
    return config;
  }

  /**
   * The readable config with sources; secrets masked (docs/access-control.md, "Secrets"); from the cached overlay.
   * @throws whatever `kv.get` throws when the cache is too old and KV cannot be read
   */
  async view(): Promise<ConfigView> {
    const overlay = (await this.#overlayCache.get()).value ?? {};
    return this.#view(overlay);
  }

  #view(overlay: Overlay): ConfigView {
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
   * @throws {InvalidInput} (`ERR_CONFIG_INVALID`) for a non-object, an unknown field, an authentication field, or a
   *   bad value; nothing is written then
   */
  async update(
    body: unknown,
  ): Promise<{ view: ConfigView; changed: FieldName[]; changes: FieldChange[] }> {
    if (body === null || typeof body !== "object" || Array.isArray(body)) {
      throw new InvalidInput([{
        loc: ["body"],
        msg: "expected a JSON object with the fields to change",
        type: "type_error.object",
        input: clipInput(body ?? null),
        ctx: {},
      }], "ERR_CONFIG_INVALID");
    }
    const forbidden: InputIssue[] = Object.keys(body)
      .filter((k) => !(k in CONFIG_FIELDS) && AUTH_FIELD.test(k))
      .map((k) => ({
        loc: ["body", k],
        msg: "API keys and authentication settings cannot be changed through the console; " +
          "set them in the environment",
        type: "forbidden_field",
        input: null,
        ctx: {},
      }));
    const parsed = ConfigChanges.safeParse(body);
    const items = [
      ...forbidden,
      ...(parsed.success ? [] : zodIssuesToItems("body", parsed.error.issues, body, SECRET_FIELDS)
        .filter((i) => !forbidden.some((f) => f.loc[1] === i.loc[i.loc.length - 1]))),
    ];
    if (items.length || !parsed.success) throw new InvalidInput(items, "ERR_CONFIG_INVALID");
    const changes = parsed.data as Overlay;
    const dirs = await localDirIssues(changes);
    if (dirs.length) throw new InvalidInput(dirs, "ERR_CONFIG_INVALID");
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
      if (!changed.length) return { view: this.#view(next), changed, changes: [] };
      // Fields checked together on the result: a half-right configuration is refused whole.
      const problems = crossFieldProblems(
        Object.fromEntries(FIELD_NAMES.map((n) => [n, this.#resolve(next, n).value])),
      );
      if (problems.length) {
        throw new InvalidInput(
          problems.map((p) => ({
            loc: ["body", p.field],
            msg: p.msg,
            type: p.type ?? "value_error.missing",
            input: null,
            ctx: p.type ? {} : { requires: "publish_target=sftp" },
          })),
          "ERR_CONFIG_INVALID",
        );
      }
      const before = this.#view(cur.value ?? {});
      // Known before anything can quote them; a refused value never becomes a "secret".
      this.#learnSecrets(changes);
      const r = await this.#kv.atomic().check(cur).set(KEY, next).commit();
      if (!r.ok) return undefined;
      this.#overlayCache.written(next, r.versionstamp);
      const view = this.#view(next);
      const fieldChanges = changed.map((field) => ({
        field,
        from: before.fields[field].value,
        to: view.fields[field].value,
      }));
      return { view, changed, changes: fieldChanges };
    });
  }

  /** Removes the whole overlay; returns the fields that had an override. */
  async reset(): Promise<FieldName[]> {
    return await retryKv("reset config", async () => {
      const cur = await this.#overlay();
      const fields = Object.keys(cur.value ?? {}) as FieldName[];
      const r = await this.#kv.atomic().check(cur).delete(KEY).commit();
      if (!r.ok) return undefined;
      this.#overlayCache.written(null, null);
      return fields;
    });
  }
}

/**
 * A local directory set by a change must be usable now (exists or can be created, writable by
 * the service), not at the next publish: one 422 item per field that is not, in words.
 */
async function localDirIssues(changes: Overlay): Promise<InputIssue[]> {
  const out: InputIssue[] = [];
  for (const [name, value] of Object.entries(changes) as [FieldName, unknown][]) {
    if (!(CONFIG_FIELDS[name] as FieldDef).localDir || typeof value !== "string") continue;
    const problem = await checkWritableDir(value);
    if (problem) {
      out.push({
        loc: ["body", name],
        msg: problem,
        type: "value_error.directory",
        input: value,
        ctx: {},
      });
    }
  }
  return out;
}

/**
 * The part of a secret value the redactor looks for: a PEM or OpenSSH private key without its
 * public `-----BEGIN …-----` / `-----END …-----` lines (they are the same in every key and would
 * mask ordinary text); any other value as it is.
 */
function secretPart(value: unknown): unknown {
  if (typeof value !== "string" || !value.includes("-----BEGIN ")) return value;
  return value.split(/\r?\n/).filter((l) => l.trim() !== "" && !l.startsWith("-----")).join("\n");
}
