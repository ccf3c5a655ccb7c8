/**
 * The attention list as the console reads it: `GET /v1/console/status` with the process key
 * (docs/console_attention.md).
 * @module
 */
import assert from "node:assert/strict";
import type { AttentionItem } from "../../lib/wire/attention.ts";
import { call } from "./app.ts";
import { proc } from "./pipeline.ts";

/** The attention items of the app at `url`. */
export async function attentionOf(url: string): Promise<AttentionItem[]> {
  const r = await call(`${url}/v1/console/status`, { headers: proc });
  assert.equal(r.status, 200);
  return (r.body as { attention: AttentionItem[] }).attention;
}
