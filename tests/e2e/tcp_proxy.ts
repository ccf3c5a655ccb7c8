/**
 * A TCP proxy for browser tests: the page talks to the service through it, and the test can
 * cut every open connection and refuse new ones for a while — a network drop the browser
 * cannot tell from a real one (Chromium's offline emulation leaves open streams alone).
 * @module
 */

/** A running proxy. */
export interface TcpProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Closes every open connection; refuses new ones until {@link TcpProxy.restore}. */
  cut(): void;
  /** Accepts connections again. */
  restore(): void;
  close(): Promise<void>;
}

/** Forwards 127.0.0.1:<random port> to `target` (`http://127.0.0.1:<port>`). */
export function startTcpProxy(target: string): TcpProxy {
  const port = Number(new URL(target).port);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  let refusing = false;
  const closeQuietly = (c: Deno.Conn) => {
    open.delete(c);
    try {
      c.close();
    } catch { /* already closed */ }
  };
  const pipe = async (from: Deno.Conn, to: Deno.Conn) => {
    try {
      await from.readable.pipeTo(to.writable, { preventClose: true });
    } catch { /* cut */ }
    closeQuietly(from);
    closeQuietly(to);
  };
  const accepting = (async () => {
    for await (const client of listener) {
      if (refusing) {
        closeQuietly(client);
        continue;
      }
      open.add(client);
      Deno.connect({ hostname: "127.0.0.1", port }).then((upstream) => {
        open.add(upstream);
        void pipe(client, upstream);
        void pipe(upstream, client);
      }, () => closeQuietly(client));
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    cut() {
      refusing = true;
      for (const c of [...open]) closeQuietly(c);
    },
    restore() {
      refusing = false;
    },
    async close() {
      listener.close();
      for (const c of [...open]) closeQuietly(c);
      await accepting;
    },
  };
}
