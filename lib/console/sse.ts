/**
 * An incremental Server-Sent Events parser (WHATWG HTML §9.2 "event stream interpretation"):
 * feed it text chunks as they arrive, get complete messages back.
 *
 * The console reads the stream with `fetch` rather than `EventSource`: the service names each
 * message after its event kind (`event: config_changed`), and an `EventSource` only delivers
 * named messages to listeners registered for that exact name, so kinds added later would be
 * missed; `fetch` also shows the status (401 = the stream token expired).
 *
 * @example
 * const parser = new SseParser();
 * for (const m of parser.push("id: 1\ndata: {}\n\n")) console.log(m.id, m.data);
 * @module
 */

/** One dispatched message. */
export interface SseMessage {
  /** Last `id:` seen (sticky across messages, as in the standard). */
  id?: string;
  /** `event:` field; `message` when absent. */
  event: string;
  /** `data:` lines joined with `\n`. */
  data: string;
  /** `retry:` in milliseconds, when this message carried one. */
  retry?: number;
}

/** Parses an event stream chunk by chunk. */
export class SseParser {
  #buf = "";
  #lastId: string | undefined;
  #event = "";
  #data: string[] = [];
  #retry: number | undefined;
  #sawComment = false;

  /** True once any comment line (e.g. a heartbeat) was seen since the last call. */
  takeComment(): boolean {
    const seen = this.#sawComment;
    this.#sawComment = false;
    return seen;
  }

  /** Adds a chunk; returns the messages it completed (those with data, or a retry). */
  push(chunk: string): SseMessage[] {
    this.#buf += chunk;
    const out: SseMessage[] = [];
    let nl: number;
    while ((nl = this.#buf.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.#buf.slice(0, nl);
      const width = this.#buf.startsWith("\r\n", nl) ? 2 : 1;
      // A lone "\r" at the end of the buffer may be the first half of "\r\n": wait for more.
      if (this.#buf[nl] === "\r" && nl === this.#buf.length - 1) break;
      this.#buf = this.#buf.slice(nl + width);
      const m = this.#line(line);
      if (m) out.push(m);
    }
    return out;
  }

  #line(line: string): SseMessage | undefined {
    if (line === "") return this.#dispatch();
    if (line.startsWith(":")) {
      this.#sawComment = true;
      return undefined;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.#data.push(value);
    else if (field === "event") this.#event = value;
    else if (field === "id" && !value.includes("\0")) this.#lastId = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.#retry = Number(value);
    return undefined;
  }

  #dispatch(): SseMessage | undefined {
    const retry = this.#retry;
    const hasData = this.#data.length > 0;
    const m: SseMessage = {
      ...(this.#lastId !== undefined ? { id: this.#lastId } : {}),
      event: this.#event || "message",
      data: this.#data.join("\n"),
      ...(retry !== undefined ? { retry } : {}),
    };
    this.#event = "";
    this.#data = [];
    this.#retry = undefined;
    return hasData || retry !== undefined ? m : undefined;
  }
}
