/**
 * The day types and seasons that index the BDEW standard load profile tables (data/bdew/SOURCE.md,
 * "Rules of use"), without the holiday calendar: the rules that choose them for a date are in
 * `./day_type.ts` (which loads npm:date-holidays), so the tables' layout and the profile codes can
 * be imported without it.
 * @module
 */

/** BDEW day types, in table order (index 0, 1, 2). */
export const DAY_TYPES = ["workday", "saturday", "sunday"] as const;
/** `workday` (Mon-Fri), `saturday`, `sunday` (Sunday or public holiday). */
export type DayType = typeof DAY_TYPES[number];

/** Seasons of the 1999 profiles, in table order (index 0, 1, 2). */
export const SEASONS = ["winter", "summer", "transition"] as const;
/** Season of the 1999 profiles (BDEW): winter 1 Nov-20 Mar, summer 15 May-14 Sep, else transition. */
export type Season = typeof SEASONS[number];
