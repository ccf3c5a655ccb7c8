/**
 * Saves a schedule document in the browser (docs/console.md, "Rows"): `GET
 * /v1/delivery-days/{day}/schedules/{area}?format=` with the operator's key, saved under the
 * service's file name ({@link downloadName}).
 * @module
 */
import { formatTaggedName } from "../fahrplan/download_name.ts";
import { errorFrom } from "./api.ts";

/**
 * Fetches the ESS or CIM document of `day` and `area` and saves it as a file.
 * @throws {ApiError} the service's refusal (e.g. 409 when the document would be invalid)
 */
export async function downloadSchedule(
  day: string,
  area: string,
  format: "ess" | "cim",
  key: string,
): Promise<void> {
  const res = await fetch(`/v1/delivery-days/${day}/schedules/${area}?format=${format}`, {
    headers: { accept: "application/xml", "x-api-key": key },
  });
  if (!res.ok) throw await errorFrom(res);
  const name = downloadName(res.headers.get("content-disposition"), day, area, format);
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * The file name a downloaded document is saved under: the service's name from
 * `Content-Disposition` (already tagged "…_001_ESS.xml" / "…_001_CIM.xml"), tagged with
 * {@link formatTaggedName} should an answer carry a plain name, or day and area without one.
 * @param disposition the answer's `Content-Disposition` header (`null`: none)
 */
export function downloadName(
  disposition: string | null,
  day: string,
  area: string,
  format: "ess" | "cim",
): string {
  const given = /filename="([^"]+)"/.exec(disposition ?? "")?.[1] ?? `${day}_${area}.xml`;
  return formatTaggedName(given, format);
}
