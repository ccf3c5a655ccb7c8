/**
 * The KV Connect peer's count of an atomic write's checks and mutations (dev/kv_connect_server.ts,
 * `atomicShape`), on the bytes Deno's own KV Connect client sent for
 * `kv.atomic().check({key: ["a"], versionstamp: null}).set(["a"], 1).set(["b"], 2).commit()`
 * (recorded at the peer; the tail of the second mutation written out by hand).
 */
import assert from "node:assert/strict";
import { atomicShape } from "../../dev/kv_connect_server.ts";

const SENT = Uint8Array.from(
  "0a 05 0a 03 02 61 00 12 11 0a 03 02 61 00 12 08 0a 04 ff 10 49 02 10 01 18 01 12 11 0a 03 02 62 00 12 08 0a 04 ff 10 49 04 10 01 18 01"
    .split(" ").map((h) => parseInt(h, 16)),
);

Deno.test("atomicShape: one check and two mutations as Deno's client sends them", () => {
  assert.deepEqual(atomicShape(SENT), { checks: 1, mutations: 2 });
  assert.deepEqual(atomicShape(new Uint8Array()), { checks: 0, mutations: 0 });
});

Deno.test("atomicShape: a message cut inside a field, or a field that is not a message, is refused", () => {
  assert.throws(() => atomicShape(SENT.subarray(0, 10)), /truncated field/);
  assert.throws(() => atomicShape(Uint8Array.of(0x08, 0x01)), /field 1 is not length-delimited/);
  assert.throws(() => atomicShape(Uint8Array.of(0x0a, 0x80)), /truncated varint/);
});
