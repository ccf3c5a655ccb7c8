/**
 * "Where the deviation came from", per metered market location, on demand (docs/console.md,
 * "After delivery"; issue 36): a disclosure under an area's sources that, when opened, reads
 * `GET /v1/delivery-days/{day}/settlement/locations?control_area=…&limit=50` and lists the
 * locations largest deviation first — MaLo-ID, what it was forecast with, forecast, actual and
 * |deviation| (lib/console/format.ts) — with a button that saves every location as CSV. A refusal
 * is said in the service's words.
 * @module
 */
import { useState } from "preact/hooks";
import { errorFrom } from "../lib/console/api.ts";
import { energy } from "../lib/console/format.ts";
import { api, apiKey } from "../lib/console/session.ts";
import { sourceName } from "../lib/console/settlement_texts.ts";
import type { LocationDeviationWire as LocationDeviation } from "../lib/wire/settlement.ts";

/** Locations shown in the table (the CSV has every one). */
const SHOWN = 50;

type Load =
  | { kind: "closed" }
  | { kind: "loading" }
  | { kind: "ok"; total: number; rows: LocationDeviation[] }
  | { kind: "error"; text: string };

/** Props of {@link DeviationLocations}. */
export interface DeviationLocationsProps {
  day: string;
  /** The control area's EIC and its name. */
  area: string;
  name: string;
  locale: string;
}

/** The disclosure; reads the locations the first time it opens. */
export function DeviationLocations({ day, area, name, locale }: DeviationLocationsProps) {
  const [load, setLoad] = useState<Load>({ kind: "closed" });
  const path = `/v1/delivery-days/${day}/settlement/locations?control_area=${area}`;
  const read = async () => {
    setLoad({ kind: "loading" });
    try {
      const body = await api<{ total: number; locations: LocationDeviation[] }>(
        "GET",
        `${path}&limit=${SHOWN}`,
      );
      setLoad({ kind: "ok", total: body.total, rows: body.locations });
    } catch (err) {
      setLoad({ kind: "error", text: (err as Error).message });
    }
  };
  const save = async () => {
    const res = await fetch(`${path}&format=csv`, {
      headers: { accept: "text/csv", "x-api-key": apiKey.peek() ?? "" },
    });
    if (!res.ok) {
      setLoad({ kind: "error", text: (await errorFrom(res)).message });
      return;
    }
    const url = URL.createObjectURL(await res.blob());
    const link = document.createElement("a");
    link.href = url;
    link.download = `deviations_${day}_${area}.csv`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <details
      class="deviation-locations"
      onToggle={(e) => {
        if ((e.currentTarget as HTMLDetailsElement).open && load.kind === "closed") read();
      }}
    >
      <summary>Per market location in {name}</summary>
      {load.kind === "loading" && <p class="muted">Reading the metered locations…</p>}
      {load.kind === "error" && <p class="error" role="alert">{load.text}</p>}
      {load.kind === "ok" && (
        <>
          <p class="muted">
            {load.total <= SHOWN
              ? `All ${load.total} metered locations, largest deviation first.`
              : `The ${SHOWN} largest of ${load.total} metered locations.`}{" "}
            <button type="button" class="btn" onClick={save}>
              Save all {load.total} as CSV
            </button>
          </p>
          <table class="worst-table deviation-table">
            <thead>
              <tr>
                <th scope="col">MaLo-ID</th>
                <th scope="col">Forecast by</th>
                <th scope="col">Forecast</th>
                <th scope="col">Actual</th>
                <th scope="col">|Deviation|</th>
              </tr>
            </thead>
            <tbody>
              {load.rows.map((r) => (
                <tr key={r.malo_id}>
                  <th scope="row">{r.malo_id}</th>
                  <td>{sourceName(r.source)}</td>
                  <td>{energy(r.forecast_mwh, locale)}</td>
                  <td>{energy(r.actual_mwh, locale)}</td>
                  <td>{energy(r.abs_deviation_mwh, locale)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </details>
  );
}
