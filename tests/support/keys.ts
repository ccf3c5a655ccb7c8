/**
 * The API keys the tests configure (docs/access-control.md, "Credentials"): one set of values, so
 * every test file means the same caller by the same secret.
 * @module
 */

/** Process key of the caller `ops`. */
export const PROC = "proc-secret-0001-aaaaaaaa";
/** A second process key: `ops`'s rotated secret, or the key of a test that wants its own. */
export const PROC_2 = "proc-secret-0002-bbbbbbbb";
/** A third process key, for a test that wants one no other file uses. */
export const PROC_3 = "proc-secret-0003-cccccccc";
/** External key of the caller `acme`. */
export const EXT = "ext-secret-0001-cccccccccc";

/**
 * Service environment with two secrets for `ops` ({@link PROC} and its rotated {@link PROC_2})
 * and {@link EXT} for `acme`, plus `extra`.
 */
export const keysEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  PROCESS_API_KEYS: `ops:${PROC},ops:${PROC_2}`,
  EXTERNAL_API_KEYS: `acme:${EXT}`,
  ...extra,
});
