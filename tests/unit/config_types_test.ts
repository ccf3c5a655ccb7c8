/**
 * The effective configuration's type is inferred from the fields' schemas: checked by the type
 * checker (`deno check` and `deno test` both type-check), so a field whose schema changes cannot
 * leave a hand-written type behind.
 */
import assert from "node:assert/strict";
import type { EffectiveConfig } from "../../lib/config/fields.ts";

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;

Deno.test("EffectiveConfig: each field's type comes from its schema and its default", () => {
  const checks: [
    Equals<EffectiveConfig["sftp_port"], number>,
    Equals<EffectiveConfig["sftp_host"], string | null>,
    Equals<EffectiveConfig["publish_target"], "auto" | "sftp" | "outbox">,
    Equals<EffectiveConfig["active_control_areas"], string[]>,
    Equals<EffectiveConfig["market_platform_api_key"], string | null>,
  ] = [true, true, true, true, true];
  assert.deepEqual(checks, [true, true, true, true, true]);
});
