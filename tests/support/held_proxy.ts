/**
 * A TCP proxy that holds every connection until released: the service's call to a peer (the
 * market platform) is then under way for as long as the test wants, without a real sleep.
 * TLS passes through untouched (the peer's certificate names 127.0.0.1, not a port).
 * @module
 */

/** A running holding proxy. */
export interface HeldProxy {
  /** `<scheme>://127.0.0.1:<port>`, the target's scheme. */
  url: string;
  /** Resolves when the first connection has arrived (and is being held). */
  arrived: Promise<void>;
  /** Lets held and later connections through. */
  release(): void;
  close(): Promise<void>;
}

/** Forwards 127.0.0.1:<random port> to `target` (`https://127.0.0.1:<port>`), held at first. */
export function holdingProxy(target: string): HeldProxy {
  const to = new URL(target);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const arrived = Promise.withResolvers<void>();
  const released = Promise.withResolvers<void>();
  const open = new Set<Deno.Conn>();
  const closeQuietly = (c: Deno.Conn) => {
    open.delete(c);
    try {
      c.close();
    } catch { /* already closed */ }
  };
  const pipe = async (from: Deno.Conn, into: Deno.Conn) => {
    try {
      await from.readable.pipeTo(into.writable, { preventClose: true });
    } catch { /* closed */ }
    closeQuietly(from);
    closeQuietly(into);
  };
  const serve = async (client: Deno.Conn) => {
    open.add(client);
    arrived.resolve();
    await released.promise;
    try {
      const upstream = await Deno.connect({ hostname: "127.0.0.1", port: Number(to.port) });
      open.add(upstream);
      void pipe(client, upstream);
      void pipe(upstream, client);
    } catch {
      closeQuietly(client);
    }
  };
  const accepting = (async () => {
    for await (const client of listener) void serve(client);
  })().catch(() => {});
  return {
    url: `${to.protocol}//127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    arrived: arrived.promise,
    release: () => released.resolve(),
    async close() {
      released.resolve();
      listener.close();
      for (const c of [...open]) closeQuietly(c);
      await accepting;
    },
  };
}
