/**
 * The BDEW standard load profile codes (data/bdew/SOURCE.md): the 1999 profiles H0, G0..G6,
 * L0..L2 and the 2025 profiles H25, G25, L25, P25, S25. Apart from `./profile.ts` (which computes
 * the shapes and needs the holiday calendar, npm:date-holidays), so that the wire shapes can list
 * the codes without loading the calendar.
 * @module
 */
import { PROFILES_1999, PROFILES_2025 } from "./tables.ts";

/** All supported profile codes: 1999 (H0, G0..G6, L0..L2) and 2025 (H25, G25, L25, P25, S25). */
export const PROFILE_CODES = [...PROFILES_1999, ...PROFILES_2025] as const;
/** A BDEW standard load profile code. */
export type ProfileCode = typeof PROFILE_CODES[number];
