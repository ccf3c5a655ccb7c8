/**
 * The folder of the TSOs' ESS DTDs (`ESS_DTD_DIR`, docs/fahrplan.md "Schema validation"), set once
 * by the app at start and read by `./ess_dtd.ts` at the first ESS document checked; kept apart so
 * that setting it does not load the XML validator when the service starts (docs/startup.md).
 * @module
 */

let folder: string | null = null;

/** Sets the folder (`null`: none, ESS documents keep only the structural rules). */
export function setEssDtdDir(dir: string | null): void {
  folder = dir;
}

/** The folder set by {@link setEssDtdDir}, or `null`. */
export function essDtdDir(): string | null {
  return folder;
}
