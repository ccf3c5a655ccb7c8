/**
 * Just enough of the KV Connect data path's protobuf messages (denokv
 * `proto/schema/datapath.proto`) for the test peer to count what it serves
 * (dev/kv_connect_server.ts, `GET /stats`): the fields of a message walked over the protobuf wire
 * format (protobuf.dev/programming-guides/encoding), and the first part of a key in the tuple
 * encoding of Deno KV (a string part is 0x02, its UTF-8 bytes, 0x00). The engine decodes and
 * checks the messages itself; nothing here decides what is stored.
 * @module
 */

/** One field of a message: its number and, for a length-delimited field, its bytes. */
export interface ProtoField {
  field: number;
  /** The bytes of a length-delimited field (wire type 2); empty for the other wire types. */
  bytes: Uint8Array;
}

/**
 * The top-level fields of a protobuf message, in order.
 * @throws on a truncated message or a wire type protobuf 3 does not use (groups)
 */
export function protoFields(msg: Uint8Array): ProtoField[] {
  let i = 0;
  const varint = () => {
    let v = 0;
    for (let shift = 0;; shift += 7) {
      if (i >= msg.length) throw new Error("truncated varint");
      const b = msg[i++];
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
  };
  const out: ProtoField[] = [];
  while (i < msg.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const type = tag & 7;
    let bytes: Uint8Array = new Uint8Array();
    if (type === 0) varint();
    else if (type === 1 || type === 5) i += type === 1 ? 8 : 4;
    else if (type === 2) {
      const length = varint(); // read before `i` is taken: varint() moves it
      bytes = msg.subarray(i, i + length);
      i += length;
    } else throw new Error(`field ${field} has wire type ${type}`);
    if (i > msg.length) throw new Error("truncated field");
    out.push({ field, bytes });
  }
  return out;
}

/**
 * The checks and mutations of an `AtomicWrite` (1 `checks`, 2 `mutations`, 3 `enqueues`; enqueues
 * count as mutations, as denokv's limit counts them).
 * @throws see {@link protoFields}
 */
export function atomicShape(msg: Uint8Array): { checks: number; mutations: number } {
  const shape = { checks: 0, mutations: 0 };
  for (const { field } of protoFields(msg)) {
    if (field === 1) shape.checks++;
    else if (field === 2 || field === 3) shape.mutations++;
  }
  return shape;
}

/**
 * The first key part of the first range of a `SnapshotRead` (1 `ranges`; a `ReadRange`'s 1
 * `start`), e.g. `"forecasts"` for a list of `["forecasts", day]`: what a read was about.
 * `"(other)"` when that part is not a string, `"(none)"` for a read without ranges.
 * @throws see {@link protoFields}
 */
export function readPrefix(msg: Uint8Array): string {
  const range = protoFields(msg).find((f) => f.field === 1);
  if (!range) return "(none)";
  const start: Uint8Array = protoFields(range.bytes).find((f) => f.field === 1)?.bytes ??
    new Uint8Array();
  if (start[0] !== 0x02) return "(other)";
  const end = start.indexOf(0x00, 1);
  return new TextDecoder().decode(start.subarray(1, end < 0 ? start.length : end));
}
