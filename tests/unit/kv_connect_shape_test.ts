/**
 * What the KV Connect test peer counts (dev/kv_connect_wire.ts): the checks and mutations of an
 * atomic write, on the bytes Deno's own KV Connect client sent for
 * `kv.atomic().check({key: ["a"], versionstamp: null}).set(["a"], 1).set(["b"], 2).commit()`
 * (recorded at the peer; the tail of the second mutation written out by hand), and the first key
 * part a snapshot read is about.
 */
import assert from "node:assert/strict";
import { atomicShape, readPrefix } from "../../dev/kv_connect_wire.ts";

const hex = (s: string) => Uint8Array.from(s.split(" ").map((h) => parseInt(h, 16)));
const SENT = hex(
  "0a 05 0a 03 02 61 00 12 11 0a 03 02 61 00 12 08 0a 04 ff 10 49 02 10 01 18 01 12 11 0a 03 02 62 00 12 08 0a 04 ff 10 49 04 10 01 18 01",
);
/** A length-delimited field `field` holding `body` (bodies under 128 bytes). */
const ld = (field: number, body: Uint8Array) => Uint8Array.of(field * 8 + 2, body.length, ...body);
const text = (s: string) => new TextEncoder().encode(s);

Deno.test("atomicShape: one check and two mutations as Deno's client sends them", () => {
  assert.deepEqual(atomicShape(SENT), { checks: 1, mutations: 2 });
  assert.deepEqual(atomicShape(new Uint8Array()), { checks: 0, mutations: 0 });
});

Deno.test("atomicShape: a message cut inside a field or a varint, or with a group, is refused", () => {
  assert.throws(() => atomicShape(SENT.subarray(0, 10)), /truncated field/);
  assert.throws(() => atomicShape(Uint8Array.of(0x0a, 0x80)), /truncated varint/);
  assert.throws(() => atomicShape(Uint8Array.of(0x0b)), /field 1 has wire type 3/);
});

Deno.test("readPrefix: the first string part of the first range's start key", () => {
  // ReadRange {start: ["forecasts", "2026-11-27"], end: …, limit: 1000 (varint), reverse: false}
  const start = Uint8Array.of(2, ...text("forecasts"), 0, 2, ...text("2026-11-27"), 0);
  const end = Uint8Array.of(...start, 0xff);
  const range = Uint8Array.of(...ld(1, start), ...ld(2, end), 0x18, 0xe8, 0x07, 0x20, 0x00);
  assert.equal(readPrefix(ld(1, range)), "forecasts");
  assert.equal(readPrefix(new Uint8Array()), "(none)");
  // A key whose first part is a number (0x21: a float64) is no prefix by name.
  assert.equal(readPrefix(ld(1, ld(1, Uint8Array.of(0x21, 0x80, 0, 0, 0, 0, 0, 0, 1)))), "(other)");
});
