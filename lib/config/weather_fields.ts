/**
 * The runtime fields of the weather inbox (docs/weather.md, "Inbox"; docs/configuration.md), kept
 * out of `./fields.ts` and spread into its table: the local `weather_inbox_dir` and the remote
 * `sftp_weather_inbox_dir` where weather files (the weather CSV, Open-Meteo answers) land; imported
 * by every orchestrator pass like the TSO's answers and the actuals.
 * @module
 */
import { z } from "zod";

const dir = z.string().min(1).max(512).regex(/^[^\0]+$/);

/** The fields, in display order (each a `FieldDef` of `./fields.ts`). */
export const WEATHER_FIELDS = {
  weather_inbox_dir: {
    env: "WEATHER_INBOX_DIR",
    schema: dir,
    default: null,
    localDir: true,
    description:
      "where weather files arrive (CSV point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s or Open-Meteo JSON; unset = no inbox); imported files move to processed/ or rejected/ inside it",
  },
  sftp_weather_inbox_dir: {
    env: "SFTP_WEATHER_INBOX_DIR",
    schema: dir,
    default: null,
    description:
      "remote folder on the sFTP server where weather files arrive (unset = none); imported like weather_inbox_dir",
  },
};
