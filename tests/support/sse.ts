/**
 * A small Server-Sent Events reader for tests: collects `id`/`event`/`data` messages and
 * comments from a fetch response.
 * @module
 */

/** One parsed SSE message. */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comment?: string;
}

/** An open stream. */
export interface SseReader {
  /** Reads until `until(messages)` is true or `timeoutMs` passes; returns every message so far. */
  read(until: (all: SseMessage[]) => boolean, timeoutMs?: number): Promise<SseMessage[]>;
  /** Cancels the body (the server sees a disconnect). */
  close(): Promise<void>;
  status: number;
}

/** Opens `url` and parses its event stream. */
export async function openSse(
  url: string,
  headers: Record<string, string> = {},
): Promise<SseReader> {
  const res = await fetch(url, { headers });
  const all: SseMessage[] = [];
  if (!res.body) {
    return {
      status: res.status,
      read: () => Promise.resolve(all),
      close: async () => {},
    };
  }
  if (res.status !== 200) {
    await res.body.cancel();
    return { status: res.status, read: () => Promise.resolve(all), close: async () => {} };
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let pending: Promise<ReadableStreamReadResult<string>> | undefined;
  const parse = () => {
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const m: SseMessage = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) m.comment = line.slice(1).trim();
        else if (line.startsWith("id: ")) m.id = line.slice(4);
        else if (line.startsWith("event: ")) m.event = line.slice(7);
        else if (line.startsWith("data: ")) m.data = (m.data ? m.data + "\n" : "") + line.slice(6);
        else if (line.startsWith("retry: ")) m.retry = Number(line.slice(7));
      }
      all.push(m);
    }
  };
  return {
    status: res.status,
    async read(until, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (!until(all)) {
        const left = deadline - Date.now();
        if (left <= 0) break;
        pending ??= reader.read();
        let timer: ReturnType<typeof setTimeout> | undefined;
        const r = await Promise.race([
          pending,
          new Promise<undefined>((res) => timer = setTimeout(() => res(undefined), left)),
        ]);
        clearTimeout(timer);
        if (r === undefined) break;
        pending = undefined;
        if (r.done) break;
        buf += r.value;
        parse();
      }
      return all;
    },
    async close() {
      await reader.cancel();
      if (pending) await pending.catch(() => {});
    },
  };
}

/** Event ids (as numbers) of the data messages. */
export function ids(messages: SseMessage[]): number[] {
  return messages.filter((m) => m.id !== undefined).map((m) => Number(m.id));
}
