/**
 * What the TSO answered stays true (docs/fahrplan.md): a resend of the same document keeps the
 * answer, a late acknowledgement does not take back a final answer, a newer version starts again
 * at `sent`; a final answer ends the platform polling. In-memory KV.
 */
import assert from "node:assert/strict";
import {
  applyAnswer,
  markSent,
  pendingPlatformDocuments,
  tsoStatuses,
} from "../../lib/fahrplan/tso_status.ts";

const DAY = "2026-11-23";
const AREA = "10YDE-RWENET---I";
const sent = (version: number, platform_id?: string) => ({
  control_area: AREA,
  receiver: "10XDE-RWENET---W",
  version,
  file: `f${version}.xml`,
  at: "2026-11-22T09:00:00.000Z",
  ...(platform_id ? { platform_id } : {}),
});
const answer = (tso_status: "acknowledged" | "confirmed" | "rejected", reason: string | null) => ({
  tso_status,
  reason_code: reason,
  reason_text: null,
  at: "2026-11-22T09:05:00.000Z",
});
const status = async (kv: Deno.Kv) => (await tsoStatuses(kv, DAY))[0];

Deno.test("TSO status: a resend of the same document keeps what the TSO answered", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await markSent(kv, DAY, sent(1, "p1"));
    assert.equal(await applyAnswer(kv, DAY, AREA, 1, answer("rejected", "A02")), "applied");
    assert.deepEqual(await pendingPlatformDocuments(kv), [], "a final answer ends the polling");
    await markSent(kv, DAY, sent(1, "p1")); // the pass sends the same version again
    assert.equal((await status(kv)).tso_status, "rejected");
    assert.equal((await status(kv)).reason_code, "A02");
    assert.deepEqual(await pendingPlatformDocuments(kv), []);

    // Acknowledged, not final: the resend keeps it and keeps asking.
    await markSent(kv, DAY, sent(2, "p2"));
    assert.equal((await status(kv)).tso_status, "sent");
    await applyAnswer(kv, DAY, AREA, 2, answer("acknowledged", "A01"));
    await markSent(kv, DAY, sent(2, "p2"));
    assert.equal((await status(kv)).tso_status, "acknowledged");
    assert.equal((await pendingPlatformDocuments(kv)).length, 1);
  } finally {
    kv.close();
  }
});

Deno.test("TSO status: a late acknowledgement does not take back a confirmation of the same document", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await markSent(kv, DAY, sent(1, "p1"));
    assert.equal(await applyAnswer(kv, DAY, AREA, 1, answer("confirmed", "A06")), "applied");
    assert.equal(await applyAnswer(kv, DAY, AREA, 1, answer("acknowledged", "A01")), "same");
    assert.equal((await status(kv)).tso_status, "confirmed");
    // An older version's answer never touches the newer one.
    await markSent(kv, DAY, sent(2, "p2"));
    assert.equal(await applyAnswer(kv, DAY, AREA, 1, answer("rejected", "A02")), "older");
    assert.equal((await status(kv)).tso_status, "sent");
  } finally {
    kv.close();
  }
});
