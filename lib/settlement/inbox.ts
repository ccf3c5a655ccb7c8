/**
 * The actuals inbox (docs/settlement.md, "Inbox"): every file that lands in `actuals_inbox_dir`
 * (and, when set, `sftp_actuals_inbox_dir` on the sFTP server) is recognised by its content —
 * EDIFACT (`UNA`/`UNB`: MSCONS actuals or balancing-group sums), the header of a price file we
 * take (`./price_files.ts`: the reBAP in either layout, the AEP estimate, ID AEP) or the CSV header
 * `market_location_id,start,kwh` (actuals) or `control_area,start,mwh,eur_mwh` (the BRP's own
 * intraday trades) — and imported as through the API (`./import.ts`,
 * `./import_prices.ts`; all or nothing per file). An imported
 * file moves to `processed/`, a bad one to `rejected/` with the reason: a
 * `settlement_input_rejected` warning event and, beside the file (local or sFTP), a text file
 * `rejected/<name>.reason.txt`. Claiming, the hidden names and the moves are those of the TSO
 * answers' inbox (`lib/fahrplan/inbox_source.ts`), so one importer takes each file.
 * Run by every orchestrator pass, also while the orchestrator is stopped.
 * @module
 */
import { sftpTargetOf } from "../adapters/sftp_target.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import type { ServiceContext } from "../context.ts";
import { type InboxSource, localInbox, sftpInbox } from "../fahrplan/inbox_source.ts";
import { SettlementInputRefused } from "./errors.ts";
import { importActuals } from "./import.ts";
import { importPrices, importTrades } from "./import_prices.ts";
import { isTradesCsv } from "./intraday_trades.ts";
import { priceLayout } from "./price_files.ts";

/** What happened to one file. */
export interface ActualsInboxResult {
  file: string;
  outcome: "imported" | "rejected";
  /** `mscons`, `csv` (actuals), `prices` (reBAP, AEP estimate, ID AEP) or `trades` (own). */
  kind?: "mscons" | "csv" | "prices" | "trades";
  /** The import's sentence, or why the file was rejected. */
  message: string;
}

type Deps = Pick<ServiceContext, "kv" | "clock" | "events" | "redactor" | "config">;

/** What a file holds, by its first characters; `null` when not recognised. */
export function recogniseFile(text: string): "mscons" | "csv" | "prices" | "trades" | null {
  const t = text.replace(/^\uFEFF/, "").trimStart();
  if (t.startsWith("UNA") || t.startsWith("UNB")) return "mscons";
  if (priceLayout(t)) return "prices";
  if (isTradesCsv(t)) return "trades";
  if (/^market_location_id,start,kwh\s*(\r?\n|$)/.test(t)) return "csv";
  return null;
}

/**
 * Imports every file waiting in the actuals inboxes.
 * @throws Error when a configured inbox cannot be read (the orchestrator reports it)
 */
export async function importActualsInbox(
  deps: Deps,
  cfg: EffectiveConfig,
  by: string,
): Promise<ActualsInboxResult[]> {
  const out: ActualsInboxResult[] = [];
  if (cfg.actuals_inbox_dir) {
    out.push(
      ...await importFrom(deps, localInbox(cfg.actuals_inbox_dir), by),
    );
  }
  if (cfg.sftp_actuals_inbox_dir) {
    const remote = await sftpInbox(
      sftpTargetOf(cfg, cfg.sftp_actuals_inbox_dir, "sftp_actuals_inbox_dir is set", deps.redactor),
    );
    try {
      out.push(...await importFrom(deps, remote, by));
    } finally {
      await remote.close();
    }
  }
  return out;
}

async function importFrom(
  deps: Deps,
  source: InboxSource,
  by: string,
): Promise<ActualsInboxResult[]> {
  const out: ActualsInboxResult[] = [];
  for (const name of await source.list()) {
    const claimed = await source.claim(name);
    if (!claimed) continue; // another importer took it
    const bytes = await claimed.bytes();
    // Recognised by its first characters (ASCII in every set); read in its own set below.
    const kind = recogniseFile(new TextDecoder().decode(bytes.subarray(0, 4096)));
    const text = () => new TextDecoder().decode(bytes);
    let reason: string;
    try {
      if (kind === "prices" || kind === "trades") {
        const r = await (kind === "prices" ? importPrices : importTrades)(
          deps,
          text(),
          by,
          `file ${name}`,
        );
        await claimed.moveTo("processed");
        out.push({ file: name, outcome: "imported", kind, message: r.message });
        continue;
      }
      if (kind) {
        const r = await importActuals(
          deps,
          kind,
          kind === "mscons" ? bytes : text(),
          by,
          `file ${name}`,
        );
        await claimed.moveTo("processed");
        out.push({ file: name, outcome: "imported", kind, message: r.message });
        continue;
      }
      reason =
        "not recognised: neither EDIFACT (UNA/UNB), nor a price file (the reBAP, the data service's reBAP, AEP estimate or ID AEP: Datum;Zeitzone;von;bis;… or Datum von;(Uhrzeit) von;…), nor the CSV headers market_location_id,start,kwh (actuals) or control_area,start,mwh,eur_mwh (own intraday trades)";
    } catch (err) {
      if (err instanceof SettlementInputRefused) {
        const msgs = err.issues.map((i) => i.msg);
        reason = msgs.slice(0, 3).join("; ") +
          (msgs.length > 3 ? ` (and ${msgs.length - 3} more)` : "");
      } else {
        // Not the file's fault (e.g. a store that stayed contended): it is not left claimed under
        // its hidden name; importing it again is safe (a repeated value is unchanged).
        reason = `it could not be stored (${
          (err as Error).message
        }); part of it may be stored: put the file back into the inbox to import it again`;
      }
    }
    await claimed.moveTo("rejected", reason);
    await deps.events.append({
      kind: "settlement_input_rejected",
      level: "warning",
      message: `The file ${name} in ${source.where} was not imported: ${
        reason.replace(/[.\s]+$/, "")
      }; moved to rejected/.`,
      caller: by,
      data: { file: name, kind, reason },
    });
    out.push({ file: name, outcome: "rejected", kind: kind ?? undefined, message: reason });
  }
  return out;
}
