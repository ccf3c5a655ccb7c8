/**
 * The runtime-configurable settings (docs/architecture.md, "Runtime configuration"): sFTP, market platform, control areas,
 * balancing group, gate closure, holiday region, publish target, orchestrator horizon.
 *
 * Each field has an environment variable (the base), an optional default, and a zod schema
 * that validates both the environment value and a console change. API keys and other
 * authentication settings are deliberately not here: they cannot be changed through the console.
 * @module
 */
import { z } from "zod";
import { ANSWER_FIELDS } from "./answer_fields.ts";
import { INTRADAY_FIELDS } from "./intraday_fields.ts";
import { SETTLEMENT_FIELDS } from "./settlement_fields.ts";
import { nonWorkingDaysProblems, POST_DELIVERY_FIELDS } from "./post_delivery_fields.ts";
import { WEATHER_FIELDS } from "./weather_fields.ts";
import { decimal, eic, eicPair, hhmm, hostname, list, num } from "./field_values.ts";

/** One configurable field. */
export interface FieldDef {
  /** Environment variable that is the base value. */
  env: string;
  /** Validates a value (from the console or the parsed environment). */
  schema: z.ZodType;
  /** Value when neither the environment nor the console sets it; `null` = unset. */
  default: unknown;
  /** Write-only: reads show `"********"` when set, `null` when not. */
  secret?: boolean;
  /** Environment value → candidate value (default: the string itself). */
  fromEnv?: (raw: string) => unknown;
  /** One line for the console and the OpenAPI document. */
  description: string;
  /** A local directory the service writes to: checked when set (`lib/adapters/local_dir.ts`). */
  localDir?: boolean;
}

/** Every runtime-configurable field, by its JSON name. */
export const CONFIG_FIELDS = {
  sftp_host: {
    env: "SFTP_HOST",
    schema: hostname,
    default: null,
    description: "sFTP server for the open-position CSV; unset = local outbox",
  },
  sftp_port: {
    env: "SFTP_PORT",
    schema: z.number().int().min(1).max(65535),
    default: 22,
    fromEnv: num,
    description: "sFTP port",
  },
  sftp_username: {
    env: "SFTP_USERNAME",
    schema: z.string().min(1).max(128),
    default: null,
    description: "sFTP user",
  },
  sftp_password: {
    env: "SFTP_PASSWORD",
    // At least 8 characters, so that the redactor can always mask it (docs/access-control.md).
    schema: z.string().min(8).max(1024),
    default: null,
    secret: true,
    description: "sFTP password, at least 8 characters (write-only)",
  },
  sftp_private_key: {
    env: "SFTP_PRIVATE_KEY",
    schema: z.string().regex(
      /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
      "expected a PEM/OpenSSH private key",
    )
      .max(16_384),
    default: null,
    secret: true,
    description: "sFTP private key, PEM or OpenSSH format (write-only)",
  },
  sftp_host_key_sha256: {
    env: "SFTP_HOST_KEY_SHA256",
    schema: z.string().regex(
      /^SHA256:[A-Za-z0-9+/]{43}=?$/,
      "expected an OpenSSH fingerprint like SHA256:<43 base64 characters>",
    ),
    default: null,
    description: "pinned SHA-256 fingerprint of the sFTP server's host key",
  },
  sftp_remote_dir: {
    env: "SFTP_REMOTE_DIR",
    schema: z.string().min(1).max(512).regex(/^[^\0]+$/),
    default: ".",
    description: "remote directory for uploads",
  },
  market_platform_url: {
    env: "MARKET_PLATFORM_URL",
    schema: z.url({ protocol: /^https$/, error: "expected an https:// URL" }),
    default: null,
    description: "base URL of the market platform API (schedules go to {url}/schedules)",
  },
  market_platform_api_key: {
    env: "MARKET_PLATFORM_API_KEY",
    schema: z.string().min(8).max(4096).regex(/^[\x21-\x7e]+$/, "printable ASCII only"),
    default: null,
    secret: true,
    description: "market platform key, sent raw in the authorization header (write-only)",
  },
  market_platform_timeout_seconds: {
    env: "MARKET_PLATFORM_TIMEOUT_SECONDS",
    schema: z.number().int().min(1).max(300),
    default: 30,
    fromEnv: num,
    description: "overall time budget of one submission including retries, seconds",
  },
  home_control_area: {
    env: "HOME_CONTROL_AREA",
    schema: eic,
    default: "10YDE-RWENET---I",
    description: "EIC of the home control area",
  },
  active_control_areas: {
    env: "ACTIVE_CONTROL_AREAS",
    schema: z.array(eic).min(1).max(50),
    default: ["10YDE-RWENET---I", "10YDE-EON------1", "10YDE-ENBW-----N", "10YDE-VE-------2"],
    fromEnv: list,
    description: "EICs of the control areas aggregated and submitted",
  },
  balancing_group: {
    env: "BALANCING_GROUP",
    schema: eic,
    default: null,
    description: "EIC of the balancing group the schedules are for",
  },
  sender_eic: {
    env: "SENDER_EIC",
    schema: eic,
    default: null,
    description: "EIC of the sending market participant",
  },
  counterparty_eic: {
    env: "COUNTERPARTY_EIC",
    schema: eic,
    default: null,
    description:
      "EIC of the schedule's counterparty (out party of the purchase, in party of the sale)",
  },
  schedule_format: {
    env: "SCHEDULE_FORMAT",
    schema: z.enum(["json", "ess", "cim"]),
    default: "json",
    description:
      "what a submission carries: json (the market platform's payload), ess (ENTSO-E ESS 2.3) or cim (IEC 62325-451-2) documents",
  },
  schedule_channel: {
    env: "SCHEDULE_CHANNEL",
    schema: z.enum(["platform", "files"]),
    default: "platform",
    description:
      "platform: submit to the market platform; files: write one document per control area to the publish target for the TSO's gateway",
  },
  schedule_inbox_dir: {
    env: "SCHEDULE_INBOX_DIR",
    schema: z.string().min(1).max(512).regex(/^[^\0]+$/),
    default: "./data/inbox",
    localDir: true,
    description:
      "where the TSO's answers (ACK, CNF, ANO) arrive; imported files move to processed/ or rejected/ inside it",
  },
  sftp_inbox_dir: {
    env: "SFTP_INBOX_DIR",
    schema: z.string().min(1).max(512).regex(/^[^\0]+$/),
    default: null,
    description:
      "remote folder on the sFTP server where the TSO's answers arrive (unset = no remote inbox); imported like schedule_inbox_dir",
  },
  sftp_archive_dir: {
    env: "SFTP_ARCHIVE_DIR",
    schema: z.string().min(1).max(512).regex(/^[^\0]+$/),
    default: null,
    description:
      "remote folder on the sFTP server for the retention archive (unset = ARCHIVE_DIR on local disk)",
  },
  tso_party_eics: {
    env: "TSO_PARTY_EICS",
    schema: z.array(eicPair("control-area EIC=TSO EIC")).max(20),
    default: [],
    fromEnv: list,
    description:
      "TSO party per control area (area EIC=TSO EIC, …) replacing the built-in Amprion, TenneT, 50Hertz, TransnetBW",
  },
  gate_closure_local_time: {
    env: "GATE_CLOSURE_LOCAL_TIME",
    schema: hhmm,
    default: "12:00",
    description: "gate closure, Europe/Berlin local time on the day before delivery",
  },
  tso_deadline_local_time: {
    env: "TSO_DEADLINE_LOCAL_TIME",
    schema: hhmm,
    default: "14:30",
    description:
      "TSO deadline of the day-ahead schedule (StromNZV § 5), Europe/Berlin local time on the day before delivery; later versions are intraday",
  },
  ...INTRADAY_FIELDS,
  ...SETTLEMENT_FIELDS,
  ...POST_DELIVERY_FIELDS,
  ...WEATHER_FIELDS,
  holiday_region: {
    env: "HOLIDAY_REGION",
    schema: z.string().regex(/^DE(-[A-Z]{2})?$/, "expected DE or DE-<state>, e.g. DE-BY"),
    default: "DE",
    description: "public-holiday calendar for standard load profiles",
  },
  publish_target: {
    env: "PUBLISH_TARGET",
    schema: z.enum(["auto", "sftp", "outbox"]),
    default: "auto",
    description: "where the CSV goes: auto = sFTP when a host is set, else the local outbox",
  },
  outbox_dir: {
    env: "OUTBOX_DIR",
    schema: z.string().min(1).max(512),
    default: "./data/outbox",
    localDir: true,
    description: "local outbox directory",
  },
  min_forecast_coverage: {
    env: "MIN_FORECAST_COVERAGE",
    schema: z.number().min(0).max(1),
    default: 0,
    fromEnv: decimal,
    description:
      "least share (0–1) of a day's market locations with a forecast; below it submission is refused",
  },
  orchestrator_horizon_days: {
    env: "ORCHESTRATOR_HORIZON_DAYS",
    schema: z.number().int().min(1).max(31),
    default: 7,
    fromEnv: num,
    description: "how many delivery days ahead the orchestrator works on",
  },
  ...ANSWER_FIELDS,
} satisfies Record<string, FieldDef>;

/** Name of a configurable field. */
export type FieldName = keyof typeof CONFIG_FIELDS;

type Fields = typeof CONFIG_FIELDS;

/**
 * Effective configuration: every field with its value (`null` = unset) — inferred from the
 * fields' schemas (a field whose default is `null` may also be `null`), so it cannot drift from
 * what the configuration accepts.
 */
export type EffectiveConfig = {
  [K in FieldName]:
    | z.output<Fields[K]["schema"]>
    | (null extends Fields[K]["default"] ? null : never);
};

/** Field names, in display order. */
export const FIELD_NAMES = Object.keys(CONFIG_FIELDS) as FieldName[];

/** Names of the write-only fields. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(
  FIELD_NAMES.filter((n) => (CONFIG_FIELDS[n] as FieldDef).secret),
);

/**
 * Parses the environment base of every field.
 * @returns the values set in the environment, and one problem per bad variable (secret values
 *   are never quoted)
 */
export function parseConfigEnv(
  env: Record<string, string | undefined>,
): {
  values: Partial<Record<FieldName, unknown>>;
  problems: { variable: string; message: string }[];
} {
  const values: Partial<Record<FieldName, unknown>> = {};
  const problems: { variable: string; message: string }[] = [];
  for (const name of FIELD_NAMES) {
    const def: FieldDef = CONFIG_FIELDS[name];
    const raw = env[def.env];
    if (raw === undefined || raw.trim() === "") continue;
    const candidate = def.fromEnv ? def.fromEnv(raw) : raw.trim();
    const r = def.schema.safeParse(candidate);
    if (r.success) values[name] = r.data;
    else {problems.push({
        variable: def.env,
        message: r.error.issues.map((i) => i.message).join("; "),
      });}
  }
  return { values, problems };
}

/** A field a combination of other fields needs, and why, in words. */
export interface CrossFieldProblem {
  field: FieldName;
  msg: string;
  /** Stable type of the 422 item (default `value_error.missing`). */
  type?: string;
}

/**
 * Rules between fields (docs/architecture.md, "Runtime configuration"): `publish_target: sftp`
 * needs `sftp_host`, `sftp_username` and a password or a private key — a configuration that is
 * half right would only fail at the next publish. Checked on every console change and on the
 * environment at start.
 * @param effective the effective value of every field (environment, overlay, defaults)
 */
export function crossFieldProblems(
  effective: Partial<Record<FieldName, unknown>>,
): CrossFieldProblem[] {
  const out: CrossFieldProblem[] = [];
  if (effective.schedule_channel === "files" && effective.schedule_format === "json") {
    out.push({
      field: "schedule_format",
      msg: "schedule_channel is files: choose the document format, ess or cim",
    });
  }
  for (
    const msg of nonWorkingDaysProblems(
      (effective.tso_non_working_days ?? []) as string[],
      (effective.tso_party_eics ?? []) as string[],
    )
  ) out.push({ field: "tso_non_working_days", msg, type: "value_error.unknown_tso" });
  const sftpNeededBy = effective.publish_target === "sftp"
    ? "publish_target is sftp"
    : effective.sftp_inbox_dir
    ? "sftp_inbox_dir is set"
    : effective.sftp_archive_dir
    ? "sftp_archive_dir is set"
    : null;
  if (sftpNeededBy) {
    const why = sftpNeededBy;
    if (!effective.sftp_host) out.push({ field: "sftp_host", msg: `${why}: set the sFTP host` });
    if (!effective.sftp_username) {
      out.push({ field: "sftp_username", msg: `${why}: set the sFTP user` });
    }
    if (!effective.sftp_password && !effective.sftp_private_key) {
      out.push({
        field: "sftp_password",
        msg: `${why}: set sftp_password or sftp_private_key`,
      });
    }
  }
  return out;
}

/** The effective value of every field from environment values (defaults where unset). */
export function withDefaults(
  values: Partial<Record<FieldName, unknown>>,
): Record<FieldName, unknown> {
  return Object.fromEntries(
    FIELD_NAMES.map((n) => [n, n in values ? values[n] : CONFIG_FIELDS[n].default]),
  ) as Record<FieldName, unknown>;
}

/** `tso_party_eics` (`area=eic` entries) as a map from control-area EIC to TSO EIC. */
export function tsoOverrides(entries: readonly string[]): Record<string, string> {
  return Object.fromEntries(entries.map((e) => e.split("=") as [string, string]));
}
