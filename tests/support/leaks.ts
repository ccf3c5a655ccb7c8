/**
 * Test helper: finds a secret, or any part of it of 8 or more characters, in a text — the rule of
 * docs/access-control.md ("Secrets") that every outward text must hold.
 * @module
 */

/** Shortest part of a secret that counts as a leak. */
export const LEAK_LENGTH = 8;

/**
 * The first part of `secret` of {@link LEAK_LENGTH} characters found in `text`, or `undefined`
 * when none is there. Secrets shorter than that are looked for whole.
 */
export function leakedPart(text: string, secret: string): string | undefined {
  if (secret.length < LEAK_LENGTH) return text.includes(secret) ? secret : undefined;
  for (let i = 0; i + LEAK_LENGTH <= secret.length; i++) {
    const part = secret.slice(i, i + LEAK_LENGTH);
    if (text.includes(part)) return part;
  }
  return undefined;
}
