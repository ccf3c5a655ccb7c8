/**
 * Runtime fields of the TSO answers (docs/fahrplan.md, "Status requests"): how long the service
 * waits for an acknowledgement or a confirmation before it asks the TSO with a status request.
 * Spread into `CONFIG_FIELDS` (`./fields.ts`).
 * @module
 */
import { z } from "zod";

const minutes = (raw: string) => (/^\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw);

/** The answer-waiting fields. */
export const ANSWER_FIELDS = {
  tso_ack_overdue_minutes: {
    env: "TSO_ACK_OVERDUE_MINUTES",
    schema: z.number().int().min(5).max(1440),
    default: 30,
    fromEnv: minutes,
    description:
      "minutes after sending a schedule version without the TSO's acknowledgement (ACK) before a status request asks for it (5–1440)",
  },
  tso_cnf_overdue_minutes: {
    env: "TSO_CNF_OVERDUE_MINUTES",
    schema: z.number().int().min(5).max(1440),
    default: 60,
    fromEnv: minutes,
    description:
      "minutes after the ACK without a confirmation (CNF) before a status request asks for it, counted from 18:00 the day before for versions the TSO processes only then (5–1440)",
  },
} as const;
