/**
 * Ports for tests.
 * @module
 */

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (bound once, then released): for a server
 * to bind next, or as a port that refuses connections.
 */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
