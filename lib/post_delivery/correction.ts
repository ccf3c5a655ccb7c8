/**
 * A post-delivery correction (docs/post-delivery.md): the next version of a delivered day's
 * schedule document for one control area — ESS or CIM by `schedule_format`, checked like every
 * document before it leaves (lib/fahrplan/document.ts, the ENTSO-E schema for CIM) — sent through
 * the configured channel (files to the publish target, or the market platform), recorded as `sent`
 * with phase `post_delivery` in the day's status and version history, so the TSO's answers are
 * tracked as for every version and the settlement takes it like any version not rejected. One
 * `post_delivery_correction_sent` event per correction.
 *
 * Refused in words (409, {@link CorrectionRefused}) before delivery has ended, without a version
 * the TSO has, after the TSO's deadline, and when the correction would change nothing.
 * @module
 */
import { MarketPlatformError, sendSchedules } from "../adapters/market_platform.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import type { ServiceContext } from "../context.ts";
import { deliveryDay } from "../domain/delivery_day.ts";
import { DomainError, InvalidInput, PublishFailed } from "../domain/errors.ts";
import { scheduleFileName } from "../fahrplan/document.ts";
import { standingVersion, versionHistory } from "../fahrplan/history.ts";
import { nextMessageVersion } from "../fahrplan/versions.ts";
import { renderModule } from "../fahrplan/xml_modules.ts";
import { deliverFile } from "../pipeline/publish.ts";
import { markDocumentSent, scheduleFor } from "../pipeline/schedule_documents.ts";
import { SubmitFailed } from "../pipeline/submit.ts";
import { assertParties } from "../pipeline/submit_checks.ts";
import { settleDay } from "../settlement/settle_day.ts";
import type { CorrectionBody, CorrectionSent } from "../wire/post_delivery.ts";
import { correctionEffect, proposalOf } from "./proposal.ts";
import { correctionWindow } from "./window.ts";

/** A correction may not be sent now: before delivery ended, nothing to correct, too late. */
export class CorrectionRefused extends DomainError {
  constructor(message: string) {
    super("ERR_CORRECTION_REFUSED", "refused", message);
    this.name = "CorrectionRefused";
  }
}

/** What sending a correction needs of the app. */
export type CorrectionServices =
  & Pick<ServiceContext, "kv" | "clock" | "events" | "redactor" | "platformClient">
  & { platformBackoffMs?: number };

const r3 = (x: number) => Math.round(x * 1000) / 1000 + 0;

/**
 * Sends the correction of `day` in `area` (an active control area; the caller checks).
 * @param body net MW per quarter-hour (`null` keeps the standing value), or `{from: "actuals"}`
 * @throws {InvalidInput} (422) when the quantities do not match the day's quarter-hours
 * @throws {CorrectionRefused} (409) in words: JSON format, delivery not over, no version the TSO
 *   has, deadline passed, no actual known (`from: actuals`), nothing would change
 * @throws {import("../domain/errors.ts").NotConfigured} when a party is not configured
 * @throws {import("../domain/errors.ts").ScheduleInvalid} or `DocumentSchemaInvalid` when the
 *   document may not leave (never sent)
 * @throws {PublishFailed} / {@link SubmitFailed} (502) when the channel did not take it
 */
export async function sendCorrection(
  svc: CorrectionServices,
  cfg: EffectiveConfig,
  day: string,
  area: string,
  body: CorrectionBody,
  by: string,
): Promise<CorrectionSent> {
  const dd = deliveryDay(day);
  const n = dd.quarterHours.length;
  if ("quantities" in body && body.quantities.length !== n) {
    throw new InvalidInput([{
      loc: ["body", "quantities"],
      msg: `delivery day ${day} has ${n} quarter-hours; got ${body.quantities.length} quantities`,
      type: "value_error.length",
      input: body.quantities.length,
      ctx: { expected: n, actual: body.quantities.length },
    }]);
  }
  if (cfg.schedule_format === "json") {
    throw new CorrectionRefused(
      `schedule_format is json: the market platform's JSON submission has no post-delivery correction; corrections are schedule documents (schedule_format ess or cim). Nothing was sent.`,
    );
  }
  assertParties(cfg, true, "nothing was sent");
  if (
    cfg.schedule_channel !== "files" && (!cfg.market_platform_url || !cfg.market_platform_api_key)
  ) {
    throw new CorrectionRefused(
      "The market platform is not configured (market_platform_url and market_platform_api_key); the correction was not sent.",
    );
  }
  const now = svc.clock.now();
  const w = correctionWindow(cfg, day, area, now);
  const tso = `${w.tso_name} (${w.tso})`;
  if (w.state === "before_delivery") {
    throw new CorrectionRefused(
      `Delivery of ${day} has not ended (it ends at ${w.delivery_end.toString()}); a post-delivery correction is possible only afterwards, until ${w.local} Berlin at ${tso}. Until the day ends, intraday versions change its open quarter-hours. Nothing was sent.`,
    );
  }
  const history = await versionHistory(svc.kv, day, area);
  const standing = standingVersion(history);
  if (!history.length) {
    throw new CorrectionRefused(
      `No schedule of ${day} for ${area} was sent to ${tso}, so there is nothing to correct after delivery. Nothing was sent.`,
    );
  }
  if (!standing) {
    throw new CorrectionRefused(
      `${tso} rejected every schedule version of ${day} for ${area}; it has no schedule a post-delivery correction could change. Nothing was sent.`,
    );
  }
  if (w.state === "closed") {
    throw new CorrectionRefused(
      `The post-delivery correction window of ${day} at ${tso} closed at ${w.local} Berlin (${w.deadline.toString()}). ${w.rule} Nothing was sent.`,
    );
  }
  let mw: number[];
  if ("quantities" in body) {
    mw = body.quantities.map((v, i) => r3(v ?? standing.quantities[i] ?? 0));
  } else {
    const settled = (await settleDay(svc.kv, cfg, day, now)).areas.find((a) =>
      a.control_area === area
    );
    const proposal = settled ? proposalOf(settled, standing) : null;
    if (!proposal || proposal.known_quarter_hours === 0) {
      throw new CorrectionRefused(
        `No actual of ${day} in ${area} is known yet, so the schedule cannot be set to it. Nothing was sent.`,
      );
    }
    mw = proposal.schedule_mw;
  }
  const effect = correctionEffect(standing.quantities, mw);
  if (effect.changed === 0) {
    throw new CorrectionRefused(
      `The correction changes no quarter-hour of version ${standing.version}, the schedule ${tso} has for ${day}. Nothing was sent.`,
    );
  }
  // The parties as configured, nothing frozen (every quarter-hour is past), checked (throws).
  const agg = { delivery_day: day, version: standing.aggregate_version };
  const build = (version: number) => scheduleFor(cfg, agg, area, mw, version, now);
  // Checked before a version number is taken: an invalid document uses up no version.
  build(history.at(-1)!.version + 1);
  const v = await nextMessageVersion(svc.kv, day, area, now, history.at(-1)!.version);
  const doc = build(v.message_version);
  const format = cfg.schedule_format === "cim" ? "cim" : "ess";
  const file = scheduleFileName(doc);
  const { renderSchedule } = await renderModule();
  const xml = renderSchedule(doc, format);
  let location: string | null;
  let platformId: string | null = null;
  if (cfg.schedule_channel === "files") {
    try {
      location = await deliverFile(cfg, file, xml, svc.redactor);
    } catch (err) {
      throw new PublishFailed(
        `Handing over the correction ${file} failed: ${(err as Error).message}`,
        {
          cause: err,
        },
      );
    }
  } else {
    platformId = await sendToPlatform(svc, cfg, {
      day,
      area,
      file,
      xml,
      version: doc.messageVersion,
      deadlineMs: w.deadline.epochMilliseconds,
    });
    location = platformId;
  }
  const prepared = { area, doc, phase: "post_delivery" as const, frozen_before: dd.end.toString() };
  await markDocumentSent(svc.kv, prepared, file, now, platformId);
  const moved =
    `${effect.short} MWh short and ${effect.long} MWh long imbalance moved to the counterparty`;
  await svc.events.append({
    kind: "post_delivery_correction_sent",
    level: "info",
    message:
      `${by} sent the post-delivery correction v${doc.messageVersion} of ${day} to ${tso} (${file}, replacing v${standing.version}): ${effect.changed} quarter-hour${
        effect.changed === 1 ? "" : "s"
      } changed, ${moved}; corrections possible until ${w.local} Berlin.`,
    delivery_day: day,
    caller: by,
    data: {
      control_area: area,
      version: doc.messageVersion,
      replaces_version: standing.version,
      file,
      from: "quantities" in body ? "quantities" : "actuals",
      changed_quarter_hours: effect.changed,
      moved_short_mwh: effect.short,
      moved_long_mwh: effect.long,
      deadline: w.deadline.toString(),
    },
  });
  return {
    delivery_day: day,
    control_area: area,
    version: doc.messageVersion,
    replaces_version: standing.version,
    phase: "post_delivery",
    channel: cfg.schedule_channel === "files" ? "files" : "platform",
    format,
    file,
    location,
    sent_at: new Date(now).toISOString(),
    from: "quantities" in body ? "quantities" : "actuals",
    changed_quarter_hours: effect.changed,
    moved_short_mwh: effect.short,
    moved_long_mwh: effect.long,
    deadline: w.deadline.toString(),
    deadline_local: w.local,
    tso_name: w.tso_name,
  };
}

/**
 * One document to the market platform (`POST {url}/schedules`, docs/fahrplan.md; URL and key
 * checked by the caller), with the idempotency key `<day>-post-delivery-v<version>-<area>`; no attempt after the TSO's deadline.
 * @returns the platform's submission id (`null` when its receipt named none)
 * @throws {SubmitFailed} when the platform refused or could not be reached in time
 */
async function sendToPlatform(
  svc: CorrectionServices,
  cfg: EffectiveConfig,
  d: { day: string; area: string; file: string; xml: string; version: number; deadlineMs: number },
): Promise<string | null> {
  try {
    const r = await sendSchedules(
      {
        url: cfg.market_platform_url!,
        apiKey: cfg.market_platform_api_key!,
        timeoutSeconds: cfg.market_platform_timeout_seconds,
        stopAfterMs: d.deadlineMs - svc.clock.now(),
        stopReason: `the TSO's post-delivery deadline (${new Date(d.deadlineMs).toISOString()})`,
        client: svc.platformClient,
        backoffBaseMs: svc.platformBackoffMs,
        clock: svc.clock,
        redactor: svc.redactor,
      },
      { xml: d.xml },
      `${d.day}-post-delivery-v${d.version}-${d.area}`,
    );
    const id = (r.body as { submission_id?: unknown } | null)?.submission_id;
    return typeof id === "string" && id ? id : null;
  } catch (err) {
    if (!(err instanceof MarketPlatformError)) throw err;
    throw new SubmitFailed(d.day, err);
  }
}
