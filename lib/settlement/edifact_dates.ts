/**
 * Dates of EDIFACT `DTM` segments as MSCONS carries them (UN/EDIFACT code list 2379; EDI@Energy
 * MSCONS AHB FV2504, conditions [931] "ZZZ = +00"): format `303` `CCYYMMDDHHMM±ZZ` (an interval's
 * start and end, the offset in hours), `304` `CCYYMMDDHHMMSS±ZZ` (the version of a monthly
 * settlement series, `DTM+293`) and `610` `CCYYMM` (its settlement month, `DTM+492`). Pure.
 * @module
 */

/** The date (`CCYYMMDD` as a number) of the date read last, and its UTC midnight. */
let lastDate = -1, lastDateMs = 0;

/** Days of the months of a common year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The format-303 text read last and its instant. */
let lastText = "", lastMs: number | undefined;

/**
 * Format 303 `CCYYMMDDHHMM±ZZ` (offset in hours) as UTC ms; `undefined` when malformed (not 15
 * characters, not digits, no such date, hour over 23 or minute over 59). Read digit by digit, the
 * date's instant once per day: an interchange of 10,000 locations holds two million of them, and
 * an interval's start is mostly the text read last (the previous interval's end).
 */
export function parse303(v: string): number | undefined {
  if (v === lastText) return lastMs;
  lastText = v;
  return lastMs = parseStamp(v, 12);
}

/** Format 304 `CCYYMMDDHHMMSS±ZZ` as UTC ms; `undefined` when malformed. */
export function parse304(v: string): number | undefined {
  return parseStamp(v, 14);
}

/** Format 610 `CCYYMM` as `YYYY-MM`; `undefined` when malformed. */
export function parse610(v: string): string | undefined {
  const m = /^(\d{4})(0[1-9]|1[0-2])$/.exec(v);
  return m ? `${m[1]}-${m[2]}` : undefined;
}

/** `CCYYMMDDHHMM[SS]±ZZ`: `digits` digits of date and time, a sign, two digits of offset. */
function parseStamp(v: string, digits: 12 | 14): number | undefined {
  if (v.length !== digits + 3) return undefined;
  let date = 0, time = 0, off = 0;
  for (let i = 0; i < v.length; i++) {
    const d = v.charCodeAt(i) - 48;
    if (i === digits) continue;
    if (d < 0 || d > 9) return undefined;
    if (i < 8) date = date * 10 + d;
    else if (i < digits) time = time * 10 + d;
    else off = off * 10 + d;
  }
  const sec = digits === 14 ? time % 100 : 0;
  const hm = digits === 14 ? (time / 100) | 0 : time;
  const sign = v.charCodeAt(digits), h = (hm / 100) | 0, mi = hm % 100;
  if ((sign !== 43 && sign !== 45) || h > 23 || mi > 59 || sec > 59) return undefined; // + -
  if (date !== lastDate) {
    const y = (date / 10000) | 0, mo = ((date / 100) | 0) % 100, d = date % 100;
    const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
    if (mo < 1 || mo > 12 || d < 1 || d > MONTH_DAYS[mo - 1] + (mo === 2 && leap ? 1 : 0)) {
      return undefined;
    }
    lastDate = date;
    lastDateMs = Date.UTC(y, mo - 1, d);
  }
  return lastDateMs + h * 3_600_000 + mi * 60_000 + sec * 1000 -
    (sign === 43 ? off : -off) * 3_600_000;
}
