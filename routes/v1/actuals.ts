/**
 * `POST /v1/actuals` (scope `external`): metered quarter-hour energy as MSCONS
 * (`application/edifact`), CSV (`text/csv`, `market_location_id,start,kwh`) or JSON; and
 * `POST /v1/imbalance-prices` (scope `process`): a price file (`text/csv`): the reBAP as the
 * TSOs' table download or their data service writes it, the AEP estimate, or ID AEP.
 * All or nothing, idempotent; a later value replaces the earlier one and the answer says how many
 * (docs/settlement.md). A refusal is a 422 whose items name message, segment and location.
 * @module
 */
import type { z } from "zod";
import { HttpProblem } from "../../lib/http/errors.ts";
import { answer } from "../../lib/http/respond.ts";
import type { RouteContext } from "../../lib/http/route_context.ts";
import { readJson } from "../../lib/http/validation.ts";
import { ActualsJson } from "../../lib/settlement/actuals_input.ts";
import { type ActualsFormat, importActuals } from "../../lib/settlement/import.ts";
import { importPrices, importTrades } from "../../lib/settlement/import_prices.ts";
import {
  ActualsImportSchema,
  PricesImportSchema,
  TradesImportSchema,
} from "../../lib/wire/settlement_inputs.ts";

/** The format of a request's body by its Content-Type, or 415. */
function formatOf(contentType: string | undefined): ActualsFormat {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/edifact") return "mscons";
  if (type === "text/csv") return "csv";
  if (type === "" || type === "application/json" || type.endsWith("+json")) return "json";
  throw new HttpProblem(
    415,
    `Content-Type ${type} is not accepted here; send application/edifact (MSCONS), text/csv (header market_location_id,start,kwh) or application/json ({"actuals": [...]}).`,
  );
}

/** Registers both routes. */
export function registerActuals(ctx: RouteContext): void {
  ctx.routes.add({
    method: "post",
    path: "/v1/actuals",
    access: "external",
    summary:
      "Send metered quarter-hour energy: MSCONS (application/edifact), text/csv (market_location_id,start,kwh) or JSON; all or nothing, a later value replaces the earlier",
    tags: ["settlement"],
    body: ActualsJson,
    altBodies: [
      {
        contentType: "application/edifact",
        schema: { type: "string" },
        description:
          "an MSCONS interchange (EDI@Energy AHB FV2504, 2.4c; older versions read): Prüfidentifikator 13025 load profile of a market location (LOC+172+MaLo-ID), 13003 balancing-group sum of a MaBiS metering point (LOC+172+Zählpunktbezeichnung, mapped in mabis_metering_points; or LOC+237); QTY+220/67/Z18/Z30/79, the unit from the OBIS code (PIA+5, 1-1:1.29.0 or 1-1:2.29.0, kWh) or an explicit KWH/MWH; DTM+163/164 format 303 per UTC quarter-hour",
      },
      {
        contentType: "text/csv",
        schema: { type: "string" },
        description:
          "header market_location_id,start,kwh; start ISO 8601 with offset at a quarter-hour; kwh the energy of that quarter-hour",
      },
    ],
    responses: {
      200: {
        description: "stored; what was new, replaced and unchanged",
        schema: ActualsImportSchema,
      },
      415: { description: "Content-Type is not application/edifact, text/csv or JSON" },
      422: { description: "refused in words (message, segment, location); nothing stored" },
    },
  }, async (c) => {
    const by = c.get("principal")?.caller ?? "unknown";
    const format = formatOf(c.req.header("content-type"));
    // MSCONS as bytes: its UNB names the character set (UNOC = ISO 8859-1), not the header.
    const body = format === "json"
      ? await readJson(c.req.raw)
      : format === "mscons"
      ? new Uint8Array(await c.req.arrayBuffer())
      : await c.req.text();
    return answer(await importActuals(ctx, format, body, by, `POST /v1/actuals`));
  });

  csvImport(ctx, {
    path: "/v1/imbalance-prices",
    summary:
      "Send imbalance prices (text/csv): the reBAP (table download or data service), the TSOs' AEP estimate (used only where no reBAP is known), or ID AEP; a newer file replaces older prices of the same quarter-hours",
    description:
      "one of: Datum;Zeitzone;von;bis;Einheit;reBAP unterdeckt;reBAP ueberdeckt (DD.MM.YYYY;CET|CEST;…); Datum;Zeitzone;von;bis;Datenkategorie;Datentyp;Einheit;reBAP unterdeckt;reBAP ueberdeckt (UTC rows, reBAP, Qualitätsgesichert); Datum;Zeitzone;von;bis;Datenkategorie;Datentyp;Einheit;AEP-Schätzer;Status (UTC rows); Datum von;(Uhrzeit) von;Zeitzone;(Uhrzeit) bis;Zeitzone;ID AEP in €/MWh (YYYY-MM-DD, UTC). German numbers; N.A. = not known",
    what: "a reBAP, AEP estimate or ID AEP file",
    schema: PricesImportSchema,
    run: importPrices,
  });
  csvImport(ctx, {
    path: "/v1/intraday-trades",
    summary:
      "Send the BRP's own intraday trades (text/csv control_area,start,mwh,eur_mwh): they price the energy the intraday versions moved instead of ID AEP; a file replaces the trades of every day and area it holds",
    description:
      "header control_area,start,mwh,eur_mwh; control_area an EIC, start ISO 8601 with offset at a quarter-hour, mwh > 0 bought / < 0 sold, eur_mwh the price",
    what: "control_area,start,mwh,eur_mwh",
    schema: TradesImportSchema,
    run: importTrades,
  });
}

/** A `text/csv` import route of scope `process` (prices, trades): 415 for another type. */
function csvImport(ctx: RouteContext, o: {
  path: string;
  summary: string;
  description: string;
  what: string;
  schema: z.ZodType;
  run: (deps: RouteContext, text: string, by: string, source: string) => Promise<unknown>;
}): void {
  ctx.routes.add({
    method: "post",
    path: o.path,
    access: "process",
    summary: o.summary,
    tags: ["settlement"],
    altBodies: [{
      contentType: "text/csv",
      schema: { type: "string" },
      description: o.description,
    }],
    responses: {
      200: { description: "stored", schema: o.schema },
      415: { description: "Content-Type is not text/csv" },
      422: { description: "refused in words (line, field and why); nothing stored" },
    },
  }, async (c) => {
    const by = c.get("principal")?.caller ?? "unknown";
    const type = (c.req.header("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (type !== "text/csv") {
      throw new HttpProblem(
        415,
        `Content-Type ${type || "(none)"} is not accepted here; send text/csv (${o.what}).`,
      );
    }
    return answer(await o.run(ctx, await c.req.text(), by, `POST ${o.path}`));
  });
}
