/**
 * Base64url without padding (RFC 4648 §5), for keys printed by the dev tools.
 * @module
 */
import { Buffer } from "node:buffer";

/** Encodes bytes as base64url without `=` padding. */
export function encodeBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("base64url");
}
