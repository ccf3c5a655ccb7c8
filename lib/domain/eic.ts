/**
 * Energy Identification Codes (ENTSO-E EIC reference manual, "check character" algorithm):
 * 16 characters of `0-9A-Z-`; the 16th is a check character computed from the first 15.
 *
 * @example
 * isValidEic("10YDE-RWENET---I"); // true (Amprion control area)
 * isValidEic("10YDE-RWENET---J"); // false (wrong check character)
 * @module
 */

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-";
/** The form of an EIC: 16 characters of `0-9A-Z-` (the check character besides). */
export const EIC_FORMAT = /^[0-9A-Z-]{16}$/;

/** The four German control areas and the DE-LU bidding zone, by EIC. */
export const GERMAN_CONTROL_AREAS = {
  "10YDE-RWENET---I": "Amprion",
  "10YDE-EON------1": "TenneT DE",
  "10YDE-ENBW-----N": "TransnetBW",
  "10YDE-VE-------2": "50Hertz",
} as const;

/** EIC of the DE-LU bidding zone. */
export const DE_LU_BIDDING_ZONE = "10Y1001A1001A82H";

/**
 * Check character for the first 15 characters of an EIC: values 0–36 (digits, A–Z, `-`),
 * weights 16 down to 2, `36 − ((sum − 1) mod 37)`.
 * @returns the character, or `undefined` when the code cannot have one (value 36 maps to `-`,
 *   which ENTSO-E never issues as a check character) or the input is not 15 valid characters
 */
export function eicCheckCharacter(first15: string): string | undefined {
  if (!/^[0-9A-Z-]{15}$/.test(first15)) return undefined;
  let sum = 0;
  for (let i = 0; i < 15; i++) sum += ALPHABET.indexOf(first15[i]) * (16 - i);
  const check = ALPHABET[36 - ((sum - 1) % 37)];
  return check === "-" ? undefined : check;
}

/** EICs found valid (a portfolio names a handful of control areas a million times over). */
const valid = new Set<string>();
const MAX_VALID = 1000;

/** Why an EIC is not valid, or `undefined` when it is. */
export function eicProblem(code: string): string | undefined {
  if (valid.has(code)) return undefined;
  const problem = checkEic(code);
  if (problem === undefined && valid.size < MAX_VALID) valid.add(code);
  return problem;
}

function checkEic(code: string): string | undefined {
  if (!EIC_FORMAT.test(code)) return "an EIC has 16 characters of 0-9, A-Z and -";
  const want = eicCheckCharacter(code.slice(0, 15));
  if (want === undefined) return "this EIC cannot carry a valid check character";
  if (want !== code[15]) return `check character should be ${want}, not ${code[15]}`;
  return undefined;
}

/** True when `code` is a well-formed EIC with the right check character. */
export function isValidEic(code: string): boolean {
  return eicProblem(code) === undefined;
}
