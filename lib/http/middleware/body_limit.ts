/**
 * Request size limit (SPEC §5.7.3, §8; DESIGN §3): a declared `Content-Length` over the limit is
 * refused with 413 before anything is read; a body without a length (chunked) is counted while
 * read and refused once past the limit; an accepted counted body is handed on in memory.
 * Requests without a body pass untouched.
 * @module
 */
import type { Gate } from "../env.ts";
import { problem } from "../errors.ts";

/**
 * Gate factory.
 * @param maxBytes the limit (`MAX_REQUEST_BYTES`), in bytes
 */
export function bodyLimit(maxBytes: number): Gate {
  const tooLarge = () => problem(413, `Request body exceeds the limit of ${maxBytes} bytes.`);
  return (c) => {
    const raw = c.req.raw;
    if (!raw.body) return undefined;
    const length = raw.headers.get("content-length");
    if (length !== null && !raw.headers.has("transfer-encoding")) {
      return parseInt(length || "0", 10) > maxBytes ? tooLarge() : undefined;
    }
    return (async () => {
      let size = 0;
      let buffer = new Uint8Array(0);
      const reader = raw.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const offset = size;
        size += value.length;
        if (size > maxBytes) return tooLarge();
        if (size > buffer.length) {
          const grown = new Uint8Array(Math.min(maxBytes, Math.max(size, buffer.length * 2)));
          grown.set(buffer.subarray(0, offset));
          buffer = grown;
        }
        buffer.set(value, offset);
      }
      c.req.raw = new Request(raw, { body: buffer.subarray(0, size) });
      return undefined;
    })();
  };
}
