/**
 * Environment settings of the service: one zod schema for every environment variable
 * (docs/access-control.md; docs/configuration.md). A bad value stops start-up with a message that names the
 * variable and never quotes a secret.
 *
 * @example
 * const settings = loadSettings(Deno.env.toObject()); // throws SettingsError on a bad value
 * @module
 */
import { z } from "zod";
import type { ApiKeyEntry, OidcSettings, Scope } from "./auth/types.ts";
import { MAX_NUMERIC_DATE } from "./auth/token_bounds.ts";
import {
  CONFIG_FIELDS,
  crossFieldProblems,
  type FieldName,
  parseConfigEnv,
  withDefaults,
} from "./config/fields.ts";
import { parseAddressRanges } from "./net/addresses.ts";

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no", ""])
  .optional()
  .transform((v) => v === "true" || v === "1" || v === "yes");

const int = (def: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return def;
      if (!/^\d+$/.test(v.trim())) {
        ctx.addIssue({ code: "custom", message: `expected a whole number, got "${v}"` });
        return z.NEVER;
      }
      const n = Number(v.trim());
      if (n < min || n > max) {
        ctx.addIssue({ code: "custom", message: `expected ${min}..${max}, got ${n}` });
        return z.NEVER;
      }
      return n;
    });

/** Whether `path` is a file the service can read. */
function existsFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

const optionalText = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const optionalUrl = optionalText.pipe(
  z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }).optional(),
);

/** Parses a `name:secret,…` list; messages name the entry by position, never its secret. */
function keyList(scope: Scope, variable: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): ApiKeyEntry[] => {
      if (raw === undefined || raw.trim() === "") return [];
      const out: ApiKeyEntry[] = [];
      raw.split(",").forEach((part, i) => {
        const entry = part.trim();
        const colon = entry.indexOf(":");
        if (colon <= 0) {
          ctx.addIssue({
            code: "custom",
            message: `entry ${i + 1} is not of the form name:secret`,
          });
          return;
        }
        const name = entry.slice(0, colon);
        const secret = entry.slice(colon + 1);
        if (!NAME_RE.test(name)) {
          ctx.addIssue({
            code: "custom",
            message: `entry ${i + 1}: caller name must be 1-64 characters of A-Z a-z 0-9 . _ -`,
          });
          return;
        }
        if (secret.length < 16 || !PRINTABLE_ASCII.test(secret)) {
          ctx.addIssue({
            code: "custom",
            message: `entry ${
              i + 1
            } (${name}): secret must be at least 16 printable ASCII characters`,
          });
          return;
        }
        out.push({ name, scope, secret, source: variable });
      });
      return out;
    });
}

function singleKey(scope: Scope, variable: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): ApiKeyEntry[] => {
      if (raw === undefined || raw.trim() === "") return [];
      const secret = raw.trim();
      if (secret.length < 16 || !PRINTABLE_ASCII.test(secret)) {
        ctx.addIssue({
          code: "custom",
          message: "secret must be at least 16 printable ASCII characters",
        });
        return z.NEVER;
      }
      return [{ name: scope, scope, secret, source: variable }];
    });
}

/** `TRUSTED_PROXIES`: addresses and CIDR ranges, canonical; every bad entry is one issue. */
const addressRanges = z.string().optional().transform((raw, ctx): string[] => {
  if (raw === undefined || raw.trim() === "") return [];
  const { entries, problems } = parseAddressRanges(raw);
  for (const message of problems) ctx.addIssue({ code: "custom", message });
  return entries;
});

/** The zod schema of the environment (variable name → parsed value). */
export const envSchema = z.object({
  PORT: int(8000, 0, 65535),
  HOSTNAME: optionalText.transform((v) => v ?? "0.0.0.0"),
  KV_PATH: optionalText.transform((v) => v ?? "./data/bridge.kv"),
  DENO_KV_ACCESS_TOKEN: optionalText,
  EXTERNAL_API_KEYS: keyList("external", "EXTERNAL_API_KEYS"),
  PROCESS_API_KEYS: keyList("process", "PROCESS_API_KEYS"),
  EXTERNAL_API_KEY: singleKey("external", "EXTERNAL_API_KEY"),
  PROCESS_API_KEY: singleKey("process", "PROCESS_API_KEY"),
  OIDC_ISSUER: optionalUrl,
  OIDC_AUDIENCE: optionalText,
  OIDC_JWKS_URL: optionalUrl,
  OIDC_SCOPE_EXTERNAL: optionalText.transform((v) => v ?? "forecast:write"),
  OIDC_SCOPE_PROCESS: optionalText.transform((v) => v ?? "process:run"),
  OIDC_JWKS_COOLDOWN_SECONDS: int(30, 0, 3600),
  OIDC_MAX_TOKEN_LIFETIME_SECONDS: int(86400, 1, MAX_NUMERIC_DATE),
  OIDC_REQUIRE_AT_JWT: bool,
  ALLOW_UNAUTHENTICATED: bool,
  RATE_LIMIT_PER_MINUTE: int(120, 0, 1_000_000),
  RATE_LIMIT_BURST: int(60, 1, 1_000_000),
  MAX_REQUEST_BYTES: int(8 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  TRUSTED_PROXIES: addressRanges,
  ORCHESTRATOR_AUTOSTART: bool,
  PIPELINE_WORKER: z.enum(["true", "false", "1", "0", "yes", "no", ""]).optional()
    .transform((v) => v === undefined || v === "" || v === "true" || v === "1" || v === "yes"),
  MARKET_PLATFORM_CA_FILE: optionalText,
  MARKET_PLATFORM_BACKOFF_MS: int(500, 1, 60_000),
  METRICS_PORT: optionalText.pipe(int(0, 0, 65535).optional()),
  METRICS_HOSTNAME: optionalText.transform((v) => v ?? "127.0.0.1"),
  RETENTION_DAYS: int(400, 0, 100_000),
  ARCHIVE_DIR: optionalText.transform((v) => v ?? "./data/archive"),
  ESS_DTD_DIR: optionalText.refine(
    (v) => v === undefined || existsFile(`${v}/schedule-xml.dtd`),
    "expected a folder holding the TSOs' ESS DTDs (schedule-xml.dtd, request-xml.dtd)",
  ),
  LOG_LEVEL: z.enum(["warning", "info"], {
    error: "expected warning (warnings and errors on stderr) or info (also info on stdout)",
  }).optional().transform((v) => v ?? "warning"),
});

/** Validated settings of one service instance. */
export interface Settings {
  /** TCP port to listen on; 0 picks a free one. */
  port: number;
  /** Address to listen on. Default `0.0.0.0`. */
  hostname: string;
  /**
   * Deno KV location: a file path (default `./data/bridge.kv`), a KV Connect URL, or `""` for
   * Deno Deploy's managed KV (the default there).
   */
  kvPath: string;
  /**
   * `DENO_KV_ACCESS_TOKEN`, the token of a KV Connect `kvPath` (Deno reads it itself); kept here
   * only so that every outward text masks it (docs/access-control.md, "Secrets").
   */
  kvAccessToken?: string;
  /** Every configured API key, both scopes, named and single-key forms (docs/access-control.md, "Credentials"). */
  apiKeys: ApiKeyEntry[];
  /** OIDC settings, or `undefined` when the bearer path is disabled. */
  oidc?: OidcSettings;
  /** `ALLOW_UNAUTHENTICATED=true`: every route open, for local development only (docs/access-control.md, "Fail closed"). */
  allowUnauthenticated: boolean;
  /** Sustained rate per caller, requests per minute; 0 disables the limit (docs/access-control.md, "Request path"). */
  rateLimitPerMinute: number;
  /** Bucket size per caller (docs/access-control.md, "Request path"). */
  rateLimitBurst: number;
  /** Largest accepted request body in bytes (docs/access-control.md, "Request path"; default 8 MiB). */
  maxRequestBytes: number;
  /**
   * `TRUSTED_PROXIES`: the proxies whose `Forwarded` / `X-Forwarded-For` name the client, as
   * canonical CIDR ranges (`10.0.0.0/8`); empty by default (docs/access-control.md, "Client
   * address").
   */
  trustedProxies: string[];
  /** Start the orchestrator as `running` when no state was persisted yet. */
  orchestratorAutostart: boolean;
  /**
   * `PIPELINE_WORKER` (default true): the forecast step and aggregation run in a Worker when the
   * store is a local file (docs/architecture.md, "Heavy work off the request thread").
   */
  pipelineWorker: boolean;
  /** PEM file of extra CAs trusted for the market platform (self-signed test platforms). */
  platformCaFile?: string;
  /** First retry delay towards the market platform, ms (doubles per attempt). Default 500. */
  platformBackoffMs: number;
  /** Environment base of the runtime-configurable fields (docs/architecture.md, "Runtime configuration"), only those set. */
  configEnv: Partial<Record<FieldName, unknown>>;
  /**
   * `LOG_LEVEL`: `warning` (default) writes warnings and errors to stderr; `info` also writes
   * info events to stdout (docs/architecture.md, "Process log").
   */
  logLevel: "warning" | "info";
  /**
   * `METRICS_PORT`: port of the separate metrics listener without credentials (docs/metrics.md);
   * `undefined` (unset): no listener, `/metrics` is served on the main port only; 0: a free port.
   */
  metricsPort?: number;
  /** `METRICS_HOSTNAME`: address of the metrics listener. Default `127.0.0.1`. */
  metricsHostname: string;
  /**
   * `RETENTION_DAYS` (default 400; 0 = keep everything): delivery days that ended, and events
   * older than, this many days are archived and leave the store (docs/retention.md).
   */
  retentionDays: number;
  /** `ARCHIVE_DIR` (default `./data/archive`): local archive folder unless `sftp_archive_dir` is set. */
  archiveDir: string;
  /**
   * `ESS_DTD_DIR` (optional): the TSOs' ESS DTD package; ESS documents are checked against it
   * before they leave (docs/fahrplan.md, "Schema validation").
   */
  essDtdDir?: string;
}

/** A bad environment; `message` lists each offending variable, never a secret value. */
export class SettingsError extends Error {
  /** Stable code for callers. */
  readonly code = "ERR_SETTINGS";
  /** The variables at fault, with one sentence each. */
  readonly problems: { variable: string; message: string }[];
  constructor(problems: { variable: string; message: string }[]) {
    super(
      "Invalid configuration:\n" +
        problems.map((p) => `  ${p.variable}: ${p.message}`).join("\n"),
    );
    this.name = "SettingsError";
    this.problems = problems;
  }
}

/**
 * Validates the environment and builds {@link Settings}.
 *
 * @param env variable name → value, e.g. `Deno.env.toObject()`
 * @throws {SettingsError} naming every bad variable (a key list without `:`, a non-number
 *   rate, a duplicate caller name or secret, `OIDC_ISSUER` without `OIDC_AUDIENCE`, …)
 */
export function loadSettings(env: Record<string, string | undefined>): Settings {
  const parsed = envSchema.safeParse(env);
  const configEnv = parseConfigEnv(env);
  if (!parsed.success) {
    throw new SettingsError([
      ...parsed.error.issues.map((i) => ({
        variable: String(i.path[0] ?? "environment"),
        // zod's own messages may quote input; ours never quote a secret. Strip any "received"
        // clause zod adds for enum/type errors to be safe.
        message: i.message.replace(/,? ?received .*$/i, ""),
      })),
      ...configEnv.problems,
    ]);
  }
  const e = parsed.data;
  const problems: { variable: string; message: string }[] = [
    ...configEnv.problems,
    ...crossFieldProblems(withDefaults(configEnv.values)).map((p) => ({
      variable: CONFIG_FIELDS[p.field].env,
      message: p.msg,
    })),
  ];
  const apiKeys = [
    ...e.EXTERNAL_API_KEYS,
    ...e.EXTERNAL_API_KEY,
    ...e.PROCESS_API_KEYS,
    ...e.PROCESS_API_KEY,
  ];
  const names = new Map<string, ApiKeyEntry>();
  const secrets = new Map<string, ApiKeyEntry>();
  for (const k of apiKeys) {
    const sameName = names.get(k.name);
    // One caller may hold several secrets of one scope (rotation, docs/access-control.md, "Credentials"); a name may not
    // stand for two scopes.
    if (sameName && sameName.scope !== k.scope) {
      problems.push({
        variable: k.source,
        message:
          `caller name "${k.name}" is also configured in ${sameName.source} (${sameName.scope})`,
      });
    }
    const sameSecret = secrets.get(k.secret);
    if (sameSecret) {
      problems.push({
        variable: k.source,
        message:
          `the secret of "${k.name}" is also used by "${sameSecret.name}" (${sameSecret.source})`,
      });
    }
    names.set(k.name, k);
    secrets.set(k.secret, k);
  }
  let oidc: OidcSettings | undefined;
  if (e.OIDC_ISSUER) {
    if (!e.OIDC_AUDIENCE) {
      problems.push({
        variable: "OIDC_AUDIENCE",
        message: "required when OIDC_ISSUER is set (the API identifier tokens must carry in aud)",
      });
    } else {
      oidc = {
        issuer: e.OIDC_ISSUER,
        audience: e.OIDC_AUDIENCE,
        jwksUrl: e.OIDC_JWKS_URL ?? `${e.OIDC_ISSUER.replace(/\/$/, "")}/.well-known/jwks.json`,
        scopeExternal: e.OIDC_SCOPE_EXTERNAL,
        scopeProcess: e.OIDC_SCOPE_PROCESS,
        jwksCooldownSeconds: e.OIDC_JWKS_COOLDOWN_SECONDS,
        maxTokenLifetimeSeconds: e.OIDC_MAX_TOKEN_LIFETIME_SECONDS,
        requireAtJwt: e.OIDC_REQUIRE_AT_JWT,
      };
    }
  }
  if (problems.length) throw new SettingsError(problems);
  return {
    port: e.PORT,
    hostname: e.HOSTNAME,
    // On Deno Deploy (DENO_DEPLOYMENT_ID set) an unset KV_PATH means the project's managed KV.
    kvPath: env.KV_PATH?.trim() ? e.KV_PATH : env.DENO_DEPLOYMENT_ID ? "" : e.KV_PATH,
    kvAccessToken: e.DENO_KV_ACCESS_TOKEN,
    apiKeys,
    oidc,
    allowUnauthenticated: e.ALLOW_UNAUTHENTICATED,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    rateLimitBurst: e.RATE_LIMIT_BURST,
    maxRequestBytes: e.MAX_REQUEST_BYTES,
    trustedProxies: e.TRUSTED_PROXIES,
    orchestratorAutostart: e.ORCHESTRATOR_AUTOSTART,
    pipelineWorker: e.PIPELINE_WORKER,
    configEnv: configEnv.values,
    platformCaFile: e.MARKET_PLATFORM_CA_FILE,
    platformBackoffMs: e.MARKET_PLATFORM_BACKOFF_MS,
    logLevel: e.LOG_LEVEL,
    metricsPort: e.METRICS_PORT,
    metricsHostname: e.METRICS_HOSTNAME,
    retentionDays: e.RETENTION_DAYS,
    archiveDir: e.ARCHIVE_DIR,
    essDtdDir: e.ESS_DTD_DIR,
  };
}

/** Names of the variables any of which makes authentication configured (docs/access-control.md, "Fail closed"). */
export const AUTH_VARIABLES = [
  "PROCESS_API_KEYS",
  "PROCESS_API_KEY",
  "EXTERNAL_API_KEYS",
  "EXTERNAL_API_KEY",
  "OIDC_ISSUER",
] as const;
