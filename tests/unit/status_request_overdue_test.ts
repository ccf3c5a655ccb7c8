/**
 * When a TSO's answer is overdue (docs/fahrplan.md, "Status requests"; lib/fahrplan/status_requests.ts):
 * no ACK 30 minutes after sending; no CNF 60 minutes after the ACK — counted from 18:00 Berlin the
 * day before delivery for a version acknowledged between the TSO deadline (14:30) and then, which
 * the TSOs only process from 18:00 (StromNZV § 5); a final answer is never overdue.
 */
import assert from "node:assert/strict";
import { overdueOf } from "../../lib/fahrplan/status_requests.ts";
import type { TsoStatus } from "../../lib/fahrplan/tso_status.ts";

const CFG = {
  tso_ack_overdue_minutes: 30,
  tso_cnf_overdue_minutes: 60,
  tso_deadline_local_time: "14:30",
};
const DAY = "2026-11-25"; // CET: 18:00 Berlin on 2026-11-24 is 17:00 UTC
const status = (tso_status: TsoStatus["tso_status"], at: string): TsoStatus => ({
  control_area: "10YDE-EON------1",
  receiver: "10XDE-EON-NETZ-C",
  version: 2,
  file: "x.xml",
  tso_status,
  reason_code: null,
  reason_text: null,
  at,
});
const ms = (iso: string) => Date.parse(iso);

Deno.test("overdue: no ACK 30 minutes after sending, not a minute before", () => {
  const sent = status("sent", "2026-11-24T09:00:00.000Z");
  assert.equal(overdueOf(DAY, sent, ms("2026-11-24T09:29:59Z"), CFG), null);
  assert.deepEqual(overdueOf(DAY, sent, ms("2026-11-24T09:30:00Z"), CFG), {
    state: "ack",
    since: ms("2026-11-24T09:00:00Z"),
  });
});

Deno.test("overdue: no CNF 60 minutes after an ACK in the morning", () => {
  const acked = status("acknowledged", "2026-11-24T09:00:00.000Z");
  assert.equal(overdueOf(DAY, acked, ms("2026-11-24T09:59:00Z"), CFG), null);
  assert.equal(overdueOf(DAY, acked, ms("2026-11-24T10:00:00Z"), CFG)?.state, "cnf");
});

Deno.test("overdue: an ACK between the TSO deadline and 18:00 waits from 18:00 Berlin", () => {
  const acked = status("acknowledged", "2026-11-24T14:00:00.000Z"); // 15:00 Berlin
  assert.equal(overdueOf(DAY, acked, ms("2026-11-24T17:59:00Z"), CFG), null); // 18:59 Berlin
  assert.deepEqual(overdueOf(DAY, acked, ms("2026-11-24T18:00:00Z"), CFG), {
    state: "cnf",
    since: ms("2026-11-24T17:00:00Z"),
  });
});

Deno.test("overdue: a confirmed, rejected or anomalous version is never overdue", () => {
  for (const s of ["confirmed", "rejected", "anomaly"] as const) {
    assert.equal(
      overdueOf(DAY, status(s, "2026-11-24T09:00:00.000Z"), ms("2026-11-26T00:00Z"), CFG),
      null,
    );
  }
});
