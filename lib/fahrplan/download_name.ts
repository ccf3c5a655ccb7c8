/**
 * The name a schedule document is downloaded under (docs/fahrplan.md, "File names"): its BDEW
 * file name with the format before the extension, so the ESS and the CIM document of one version
 * do not overwrite each other (`…_10XDE-RWENET---W_001_ESS.xml`, `…_001_CIM.xml`). The service's
 * `Content-Disposition` and the console's save name both come from here. Files written to an
 * outbox, sent or archived keep the plain BDEW name. Plain code: the browser bundle imports it.
 * @module
 */

/** The document formats a schedule is rendered in. */
export type ScheduleFormat = "ess" | "cim";

/**
 * `name` with `_ESS` or `_CIM` before its extension (`.xml` when it has none); a name that
 * already ends in that tag is returned as it is.
 */
export function formatTaggedName(name: string, format: ScheduleFormat): string {
  const tag = format.toUpperCase();
  const dot = name.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ".xml"];
  return stem.toUpperCase().endsWith(`_${tag}`) ? `${stem}${ext}` : `${stem}_${tag}${ext}`;
}
