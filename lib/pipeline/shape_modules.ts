/**
 * The modules that compute BDEW profile shapes (`lib/domain/slp/profile.ts`, and the open
 * position and missing energy that sum them), imported at the first forecast or aggregation step
 * instead of when the service starts. The shapes need the public-holiday calendar,
 * npm:date-holidays, which evaluates every country's data when imported (~0.1 s CPU); a process
 * that never computes a shape (most test processes, a replica that only answers) does not pay it.
 *
 * The first step of a process waits for the import once (the same ~0.1 s); later calls get the
 * loaded modules. Nothing is configured here: the holiday region is checked where it is used, as
 * before (`UnknownHolidayRegionError` from `lib/domain/slp/day_type.ts`).
 * @module
 */

/** The loaded modules, by role. */
export interface ShapeModules {
  /** `lib/domain/slp/profile.ts`: shapes, fingerprints, `fnv1a`. */
  profile: typeof import("../domain/slp/profile.ts");
  /** `./open_position.ts`: `openPosition`, `warmShapes`. */
  openPosition: typeof import("./open_position.ts");
  /** `./missing_energy.ts`: `missingEnergy`. */
  missingEnergy: typeof import("./missing_energy.ts");
}

let loading: Promise<ShapeModules> | undefined;

/** The shape modules, imported at the first call (one import per process). */
export function shapeModules(): Promise<ShapeModules> {
  return loading ??= Promise.all([
    import("../domain/slp/profile.ts"),
    import("./open_position.ts"),
    import("./missing_energy.ts"),
  ]).then(([profile, openPosition, missingEnergy]) => ({ profile, openPosition, missingEnergy }));
}
