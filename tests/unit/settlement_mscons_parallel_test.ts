/**
 * MSCONS read in parts on several cores (lib/settlement/mscons_parallel.ts; docs/settlement.md,
 * "Cost"): the same series, positions and refusals as one piece, on the real two-message
 * interchange (tests/fixtures/mscons, a copy of ../shared/data/mscons) and on the metering
 * simulator's interchange with released terminators, line breaks and a decimal comma.
 */
import assert from "node:assert/strict";
import { meteringInterchange } from "../../dev/metering_simulator.ts";
import { SettlementInputRefused } from "../../lib/settlement/errors.ts";
import { parseMscons } from "../../lib/settlement/mscons.ts";
import { cutBetweenMessages, readMscons } from "../../lib/settlement/mscons_parallel.ts";
import { decodeInterchange, interchangeEncoding } from "../../lib/settlement/edifact_text.ts";

/** One byte per character (ISO 8859-1), as a UNOC interchange arrives. */
const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const utf8 = (text: string) => new TextEncoder().encode(text);
const asText = (b: Uint8Array) => new TextDecoder("latin1").decode(b);

const MULTI = Deno.readTextFileSync(
  new URL("../fixtures/mscons/MSCONS_TL_Multiple_LOC_SAMPLE.txt", import.meta.url),
);

/** Seven locations of the simulator, a free text with a released `'UNH+` after every `BGM`. */
function tricky(): string {
  const locations = Array.from({ length: 7 }, (_, i) => ({
    malo_id: `5000000000${i}`,
    kw: Array.from({ length: 96 }, (_, q) => 1 + (q % 5)),
    noise: 0.1,
  }));
  return meteringInterchange("2027-03-10", locations).text
    .replace(/(BGM\+[^']*')/g, "$1FTX+AAI+++not a message?'UNH+1+MSCONS'")
    .replaceAll("'", "'\r\n")
    .replaceAll("?'\r\n", "?'"); // a released terminator stays in its segment
}

/** The refusal's sentences of `fn` (fails when it does not refuse). */
async function refusal(fn: () => unknown): Promise<string[]> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof SettlementInputRefused, String(err));
    return err.issues.map((i) => i.msg);
  }
  assert.fail("not refused");
}

Deno.test("MSCONS in parts: the real two-message interchange reads as in one piece", async () => {
  const cut = cutBetweenMessages(utf8(MULTI), 2);
  assert.equal(cut?.parts.length, 2);
  assert.match(asText(cut!.parts[1]), /^UNH\+2\+/);
  const one = parseMscons(MULTI);
  const parts = await readMscons(utf8(MULTI), { minBytes: 0, parts: 2 });
  assert.deepEqual(parts, one);
  assert.equal(parts.series.length, 2);
});

Deno.test("MSCONS in parts: released terminators and line breaks do not cut, positions as in one piece", async () => {
  const text = tricky();
  const cut = cutBetweenMessages(utf8(text), 3)!;
  assert.equal(cut.parts.length, 3);
  for (const p of cut.parts.slice(1)) assert.match(asText(p), /^UNH\+\d+\+MSCONS:D:04B/);
  assert.equal(cut.parts.map(asText).join(""), text);
  const one = parseMscons(text);
  assert.equal(one.series.length, 7);
  assert.deepEqual(await readMscons(utf8(text), { minBytes: 0, parts: 3 }), one);
  assert.deepEqual(await readMscons(utf8(text), { minBytes: 0, parts: 2 }), one);
  // The last location's LOC segment, counted in the whole interchange.
  const before = text.slice(0, text.lastIndexOf("LOC+172+"));
  const segments = before.split(/(?<!\?)'/).length - 1; // UNA's own terminator is not a segment
  assert.match(one.series[6].where, new RegExp(`segment ${segments} \\(LOC\\)$`));
});

Deno.test("MSCONS in parts: a refusal in a later part is told as in one piece", async () => {
  const text = tricky();
  const lastLoc = text.lastIndexOf("LOC+172+");
  const at = text.indexOf("QTY+220:", text.indexOf("QTY+220:", lastLoc) + 1);
  const broken = text.slice(0, at) + "QTY+220:1,5:KWH" + text.slice(text.indexOf("'", at));
  const one = await refusal(() => parseMscons(broken));
  assert.match(one[0], /market location 50000000006: the quantity 1,5 is not a number/);
  for (const parts of [2, 3]) {
    assert.deepEqual(
      await refusal(() => readMscons(utf8(broken), { minBytes: 0, parts })),
      one,
    );
  }
});

Deno.test("MSCONS in parts: one message or a small interchange is read in one piece", async () => {
  const text = tricky();
  const first = text.indexOf("UNH+2+");
  const single = text.slice(0, first) + text.slice(text.lastIndexOf("UNZ+"));
  assert.equal(cutBetweenMessages(utf8(single), 2), null);
  assert.deepEqual(await readMscons(utf8(single), { minBytes: 0, parts: 2 }), parseMscons(single));
  assert.equal(cutBetweenMessages(utf8("not EDIFACT"), 2), null);
  // A broken header before a cut: refused as in one piece.
  const brokenHead = text.replace("UNB+", "UNB+\u0001");
  assert.deepEqual(
    await refusal(() => readMscons(utf8(brokenHead), { minBytes: 0, parts: 2 })),
    await refusal(() => parseMscons(brokenHead)),
  );
});

Deno.test('MSCONS bytes: a UNOC interchange is ISO 8859-1 (a DSO\'s "München" is read, not refused)', async () => {
  const named = MULTI.replace(/(NAD\+MS[^']*')/, "$1CTA+IC+:Stadtwerke München'");
  const bytes = latin1(named);
  assert.equal(interchangeEncoding(bytes), "iso-8859-1");
  assert.equal(decodeInterchange(bytes), named);
  // Read as UTF-8 it would hold a replacement character, which EDIFACT does not allow.
  assert.throws(() => parseMscons(new TextDecoder().decode(bytes)), /Invalid character/);
  const one = parseMscons(named);
  assert.equal(one.series.length, 2);
  assert.deepEqual(await readMscons(bytes), one);
  assert.deepEqual(await readMscons(bytes, { minBytes: 0, parts: 2 }), one);
  // ASCII only: the same text whatever the set; UNOW is UTF-8.
  assert.equal(decodeInterchange(utf8(MULTI)), MULTI);
  assert.equal(interchangeEncoding(utf8(MULTI.replace("UNOC", "UNOW"))), "utf-8");
});

Deno.test("MSCONS in parts: this thread stays free while the workers read", async () => {
  // 700 locations × one day: about 5 MiB, above the size from which the interchange is cut.
  const locations = Array.from({ length: 700 }, (_, i) => ({
    malo_id: String(50000000000 + i),
    kw: Array.from({ length: 96 }, (_, q) => 1 + (q % 5)),
    noise: 0.1,
  }));
  const bytes = utf8(meteringInterchange("2027-03-10", locations).text);
  let turns = 0, reading = true;
  const tick = () => {
    if (!reading) return;
    turns++;
    setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const r = await readMscons(bytes, { parts: 2 });
  reading = false;
  assert.equal(r.series.length, 700);
  // Read here, the parse would hold this thread for its whole length: no timer could run.
  assert.ok(turns >= 3, `only ${turns} timer turns while reading`);
});
