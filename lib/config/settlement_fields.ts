/**
 * The runtime fields of the settlement after delivery (docs/settlement.md, docs/configuration.md),
 * kept out of `./fields.ts` and spread into its table: `balancing_areas` (`./balancing_areas.ts`),
 * `mabis_metering_points` (`./mabis_points.ts`), `clearing_tolerance_kwh` (the clearing list),
 * the local inbox `actuals_inbox_dir` and the remote `sftp_actuals_inbox_dir` where actuals
 * (MSCONS, CSV) and reBAP files land; imported by every orchestrator pass like the TSO's answers.
 * @module
 */
import { z } from "zod";
import { BALANCING_AREAS_FIELD } from "./balancing_areas.ts";
import { MABIS_METERING_POINTS_FIELD } from "./mabis_points.ts";
import { decimal } from "./field_values.ts";

const dir = z.string().min(1).max(512).regex(/^[^\0]+$/);

/** The fields, in display order (each a `FieldDef` of `./fields.ts`). */
export const SETTLEMENT_FIELDS = {
  balancing_areas: BALANCING_AREAS_FIELD,
  mabis_metering_points: MABIS_METERING_POINTS_FIELD,
  clearing_tolerance_kwh: {
    env: "CLEARING_TOLERANCE_KWH",
    schema: z.number().min(0).max(1_000_000),
    default: 1,
    fromEnv: decimal,
    description:
      "kWh per quarter-hour a balancing-group sum may differ from our market-location sum before the quarter-hour is on the month's clearing list (0–1,000,000)",
  },
  actuals_inbox_dir: {
    env: "ACTUALS_INBOX_DIR",
    schema: dir,
    default: null,
    localDir: true,
    description:
      "where actuals (MSCONS, CSV market_location_id,start,kwh) and reBAP price files arrive (unset = no inbox); imported files move to processed/ or rejected/ inside it",
  },
  sftp_actuals_inbox_dir: {
    env: "SFTP_ACTUALS_INBOX_DIR",
    schema: dir,
    default: null,
    description:
      "remote folder on the sFTP server where actuals and reBAP files arrive (unset = none); imported like actuals_inbox_dir",
  },
};
