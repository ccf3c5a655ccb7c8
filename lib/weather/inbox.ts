/**
 * The weather inbox (docs/weather.md, "Inbox"): every file that lands in `weather_inbox_dir` (and,
 * when set, `sftp_weather_inbox_dir` on the sFTP server) is recognised by its content — the CSV
 * header `point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s`, or JSON that is an Open-Meteo
 * answer — and imported as through `POST /v1/weather` (`./import.ts`, all or nothing per file,
 * received at the instant of the import). An imported file moves to `processed/`, a refused one
 * to `rejected/` with `<name>.reason.txt` and a `weather_input_rejected` warning event. Claiming
 * and moving are those of the other inboxes (`lib/adapters/inbox_import.ts`). Run by every
 * orchestrator pass, also while the orchestrator is stopped.
 * @module
 */
import { importInboxes, type InboxFileResult } from "../adapters/inbox_import.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import type { ServiceContext } from "../context.ts";
import { isWeatherCsv } from "./csv.ts";
import { importWeather, type WeatherFormat } from "./import.ts";
import { isOpenMeteo } from "./open_meteo.ts";

/** What happened to one file of the weather inbox. */
export type WeatherInboxResult = InboxFileResult<WeatherFormat>;

type Deps = Pick<ServiceContext, "kv" | "clock" | "events" | "redactor">;

/** What a file holds: the weather CSV, an Open-Meteo answer, or `null`. */
export function recogniseWeatherFile(bytes: Uint8Array): WeatherFormat | null {
  const text = new TextDecoder().decode(bytes).replace(/^\uFEFF/, "");
  if (isWeatherCsv(text)) return "csv";
  const start = text.trimStart()[0];
  if (start !== "{" && start !== "[") return null;
  try {
    return isOpenMeteo(JSON.parse(text)) ? "open_meteo" : null;
  } catch {
    return null;
  }
}

/**
 * Imports every file waiting in the weather inboxes.
 * @throws Error when a configured inbox cannot be read (the orchestrator reports it)
 */
export function importWeatherInbox(
  deps: Deps,
  cfg: EffectiveConfig,
  by: string,
): Promise<WeatherInboxResult[]> {
  const folders = {
    local: cfg.weather_inbox_dir,
    sftp: cfg.sftp_weather_inbox_dir,
    sftpField: "sftp_weather_inbox_dir",
  };
  return importInboxes<WeatherFormat>(cfg, folders, deps.redactor, (source) => ({
    recognise: recogniseWeatherFile,
    notRecognised:
      "not recognised: neither the CSV header point_id,start,temperature_c,ghi_w_m2,wind_speed_m_s nor the JSON of an Open-Meteo answer",
    async importFile(kind, bytes, name) {
      const text = new TextDecoder().decode(bytes);
      const body = kind === "csv" ? text : JSON.parse(text);
      return (await importWeather(deps, kind, body, by, `file ${name}`)).message;
    },
    async rejected(name, kind, reason) {
      await deps.events.append({
        kind: "weather_input_rejected",
        level: "warning",
        message: `The weather file ${name} in ${source.where} was not imported: ${
          reason.replace(/[.\s]+$/, "")
        }; moved to rejected/.`,
        caller: by,
        data: { file: name, kind, reason },
      });
    },
  }));
}
