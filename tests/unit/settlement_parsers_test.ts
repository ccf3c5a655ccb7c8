/**
 * The settlement input parsers on the real files (tests/fixtures/mscons, tests/fixtures/rebap,
 * copies of ../shared/data with their SOURCE.md): MSCONS market-location load profiles and the
 * balancing-group sum, the reBAP layout; and each refusal in words.
 */
import assert from "node:assert/strict";
import { parseMscons } from "../../lib/settlement/mscons.ts";
import { decimalNumber, readSegments } from "../../lib/settlement/edifact_segments.ts";
import { refusal } from "../support/issues.ts";
import { actualsFromCsv, actualsFromJson } from "../../lib/settlement/actuals_input.ts";
import { germanNumber, isRebapCsv, parseRebap } from "../../lib/settlement/rebap.ts";
import { splitByDay } from "../../lib/settlement/day_split.ts";

const FIX = new URL("../fixtures/", import.meta.url);
const read = (p: string) => Deno.readTextFileSync(new URL(p, FIX));
const MULTI = read("mscons/MSCONS_TL_Multiple_LOC_SAMPLE.txt");
const SAMPLE01 = read("mscons/MSCONS_TL_SAMPLE01.txt");
const BG = read("mscons/mscons-balancing-group-sum-simple.txt");
const REBAP = read("rebap/reBAP_2027-03_synthetic.csv");

/** Σ of the QTY+220 values of a message text, summed from the raw text (decimal `mark`). */
function rawQtySum(text: string, mark: string): number {
  let sum = 0;
  for (const m of text.matchAll(/QTY\+220:([-0-9.,]+)/g)) sum += Number(m[1].replace(mark, "."));
  return sum;
}

Deno.test("MSCONS: the real two-message interchange reads as two market locations, energy = Σ QTY", () => {
  const r = parseMscons(MULTI);
  assert.equal(r.reference, "E-121808993A");
  assert.equal(r.messages, 2);
  assert.deepEqual(r.series.map((s) => s.owner), [
    { kind: "market_location", malo_id: "51481308448" },
    { kind: "market_location", malo_id: "51481308456" },
  ]);
  // March 2022 in UTC (2022-02-28T23:00Z – 2022-03-31T22:00Z): 31 days less the spring hour.
  for (const s of r.series) {
    assert.equal(new Date(s.start).toISOString(), "2022-02-28T23:00:00.000Z");
    assert.equal(s.kwh.length, 31 * 96 - 4);
  }
  const total = r.series.reduce((a, s) => a + s.kwh.reduce((x, y) => x + y, 0), 0);
  assert.ok(Math.abs(total - rawQtySum(MULTI, ".")) < 1e-9, `${total}`);
  // Per local day: 31 days, the 27th of March has 92 quarter-hours.
  const days = splitByDay(r.series[0].start, r.series[0].kwh);
  assert.equal(days.length, 31);
  assert.equal(days.find((d) => d.day === "2022-03-27")!.values.size, 92);
  const dayEnergy = days.reduce((a, d) => a + [...d.values.values()].reduce((x, y) => x + y, 0), 0);
  assert.ok(Math.abs(dayEnergy - r.series[0].kwh.reduce((x, y) => x + y, 0)) < 1e-9);
});

Deno.test("MSCONS: UNA decides the decimal mark (the real decimal-comma message)", () => {
  let sum = 0, n = 0, mark = "";
  readSegments(SAMPLE01, (s, syntax) => {
    mark = syntax.decimalMark;
    if (s.tag === "QTY") sum += decimalNumber(s.at(0, 1)!, mark)!, n++;
  });
  assert.equal(mark, ",");
  assert.equal(n, 2976); // December 2015: 31 × 96
  assert.ok(Math.abs(sum - rawQtySum(SAMPLE01, ",")) < 1e-9);
  assert.ok(sum > 0);
});

Deno.test("MSCONS: the real 2.2e message (13008, gas) is refused; without its PID, for its OBIS code", () => {
  const issues = refusal(() => parseMscons(SAMPLE01));
  assert.equal(issues.length, 1);
  assert.equal(issues[0].type, "value_error.mscons");
  assert.match(
    issues[0].msg,
    /message 1 \(UNH\+1, BGM 13337815E25-1\), segment 5 \(RFF\+Z13:13008\): Prüfidentifikator 13008 \(Messwert Lastgang \(Gas\)\) is a gas message; we take electricity/,
  );
  // Without the Prüfidentifikator its quantities have no unit, and 1-1:1.10.0 gives none.
  const noPid = refusal(() => parseMscons(SAMPLE01.replace("RFF+Z13:13008'", "")));
  assert.equal(noPid[0].type, "value_error.unit");
  assert.match(
    noPid[0].msg,
    /segment 14 \(QTY\+220:0\), market location US0001062600000001000000022345671: the quantity has no unit and OBIS code 1-1:1\.10\.0 is not one we know; we take 1-1:1\.29\.0 or 1-1:2\.29\.0/,
  );
});

Deno.test("MSCONS: the real balancing-group sum is refused for its unit D54 (not an energy)", () => {
  const issues = refusal(() => parseMscons(BG));
  assert.equal(issues[0].type, "value_error.unit");
  assert.match(
    issues[0].msg,
    /segment 18 \(QTY\+220:4250\.465:D54\), balancing group 11XUENBSOLS----X in balancing area 11XVNBSOLS-----X: unit D54 is watt per square metre \(UN\/ECE Recommendation 20\), not an energy; we take KWH or MWH/,
  );
});

Deno.test("MSCONS: the balancing-group layout with KWH and quarter-hours reads per group and area", () => {
  const head = BG.slice(0, BG.indexOf("DTM+163:202102012300"));
  const qh = Array.from({ length: 4 }, (_, i) => {
    const t = (m: number) => `20210201${String(23).padStart(2, "0")}${String(m).padStart(2, "0")}`;
    const end = i === 3 ? "202102020000" : t(15 * (i + 1));
    return `QTY+220:${1000 + i}.5:KWH'\nDTM+163:${t(15 * i)}?+00:303'\nDTM+164:${end}?+00:303'\n`;
  }).join("");
  const text = head + "LIN+1'\n" + qh + "UNT+20+1'\nUNZ+1+ABC4711'\n";
  const r = parseMscons(text);
  assert.deepEqual(r.series[0].owner, {
    kind: "balancing_group_sum",
    balancing_group: "11XUENBSOLS----X",
    balancing_area: "11XVNBSOLS-----X",
  });
  assert.deepEqual(r.series[0].kwh, [1000.5, 1001.5, 1002.5, 1003.5]);
});

Deno.test("MSCONS: a changed decimal mark, a gap, an off-grid interval, an unknown unit: refused in words", () => {
  const comma = refusal(() => parseMscons(MULTI.replace("UNA:+.? '", "UNA:+,? '")));
  assert.equal(comma[0].type, "value_error.decimal_mark");
  assert.match(
    comma[0].msg,
    /message 1 \(UNH\+1, BGM E-121808993A-1\), segment \d+ \(QTY\+220:\d+\.\d+:KWH\), market location 51481308448: the quantity \d+\.\d+ is not a number with the decimal mark "," that UNA declares/,
  );

  // Drop one quarter-hour (its QTY and DTM pair) from the second message.
  const drop = "QTY+220:0:KWH'DTM+163:202203101200?+00:303'DTM+164:202203101215?+00:303'";
  const second = MULTI.indexOf("LOC+172+51481308456");
  const at = MULTI.indexOf(drop, second);
  assert.ok(at > 0);
  const gap = refusal(() => parseMscons(MULTI.slice(0, at) + MULTI.slice(at + drop.length)));
  assert.equal(gap[0].type, "value_error.gap");
  assert.match(
    gap[0].msg,
    /message 2 \(UNH\+2, BGM E-121808993A-2\).*market location 51481308456: gap: nothing from 2022-03-10T12:00Z to 2022-03-10T12:15Z/,
  );

  const off = refusal(() =>
    parseMscons(MULTI.replace("DTM+164:202203101215?+00:303", "DTM+164:202203101220?+00:303"))
  );
  assert.equal(off[0].type, "value_error.quarter_hour");
  assert.match(off[0].msg, /2022-03-10T12:00Z–2022-03-10T12:20Z is not one UTC quarter-hour/);

  const unit = refusal(() => parseMscons(MULTI.replaceAll(":KWH'", ":KWT'")));
  assert.equal(unit.length, 2); // once per location
  assert.match(
    unit[1].msg,
    /market location 51481308456: unit KWT is kilowatt, a power \(UN\/ECE Recommendation 20\), not an energy; we take KWH or MWH/,
  );

  const junk = refusal(() => parseMscons("this is not EDIFACT"));
  assert.match(junk[0].msg, /not readable as EDIFACT|no message/);
});

Deno.test("actuals CSV and JSON: runs per location; bad rows named by line", () => {
  const s = actualsFromCsv(
    "market_location_id,start,kwh\n51238696781,2027-03-28T01:45:00+01:00,1.5\n51238696781,2027-03-28T03:00:00+02:00,2\n51238696781,2027-03-28T04:00:00+02:00,3\n",
  );
  assert.equal(s.length, 2); // 01:45 CET and 03:00 CEST are consecutive quarter-hours
  assert.deepEqual(s[0].kwh, [1.5, 2]);
  assert.equal(new Date(s[0].start).toISOString(), "2027-03-28T00:45:00.000Z");
  const bad = refusal(() =>
    actualsFromCsv(
      'market_location_id,start,kwh\n51238696781,2027-03-28T01:40:00+01:00,1\n51238696781,2027-03-28T02:00:00,1\n51238696781,2027-03-28T05:00:00Z,"1,5"\n',
    )
  );
  assert.match(
    bad.map((i) => i.msg).join("\n"),
    /line 2, market location 51238696781: 2027-03-28T01:40:00\+01:00 is not the start of a quarter-hour/,
  );
  assert.match(bad.map((i) => i.msg).join("\n"), /line 3.*not ISO 8601 with an offset/);
  assert.equal(refusal(() => actualsFromCsv("malo,start,kw\n1,2,3\n"))[0].type, "value_error.csv");
  const j = actualsFromJson({
    actuals: [{ market_location_id: "51238696781", start: "2027-03-01T00:00:00+01:00", kwh: 4 }],
  });
  assert.deepEqual(j[0].kwh, [4]);
  assert.match(refusal(() => actualsFromJson({ rows: [] }))[0].msg, /actuals/);
});

Deno.test("reBAP: the March 2027 file reads 2,972 quarter-hours, 92 on 28 March, CET/CEST per row", () => {
  assert.ok(isRebapCsv(REBAP));
  const p = parseRebap(REBAP);
  assert.equal(p.length, 2972);
  const day = p.filter((x) =>
    x.start >= Date.parse("2027-03-27T23:00Z") && x.start < Date.parse("2027-03-28T22:00Z")
  );
  assert.equal(day.length, 92);
  // 28.03.2027;CET;01:45;03:00 is 00:45Z; the next row, 03:00 CEST, 01:00Z.
  const i = p.findIndex((x) => x.start === Date.parse("2027-03-28T00:45Z"));
  assert.equal(p[i + 1].start, Date.parse("2027-03-28T01:00Z"));
  assert.deepEqual(p[i - 2], {
    start: Date.parse("2027-03-28T00:15Z"),
    short: -824.89,
    long: -824.89,
  });
  assert.equal(germanNumber("1.234,56"), 1234.56);
  assert.equal(germanNumber("-4,83"), -4.83);
  assert.equal(germanNumber("N.A."), null);
  assert.equal(germanNumber("1,234.56"), undefined);
});

Deno.test("reBAP: N.A., a wrong zone, a wrong unit, an English number: each in words", () => {
  const lines = REBAP.split("\n");
  const na = parseRebap([lines[0], lines[1].replace("53,67;53,67", "N.A.;N.A.")].join("\n"));
  assert.deepEqual(na[0], { start: Date.parse("2027-02-28T23:00Z"), short: null, long: null });
  const bad = refusal(() =>
    parseRebap(
      [
        lines[0],
        lines[1].replace(";CET;", ";CEST;"),
        lines[2].replace("EUR/MWh", "ct/kWh"),
        lines[3].replace("13,47", "13.47"),
      ].join("\n"),
    )
  );
  const text = bad.map((i) => i.msg).join("\n");
  assert.match(text, /line 2: 01\.03\.2027 00:00 CEST: Europe\/Berlin is not on CEST then/);
  assert.match(text, /line 3: unit ct\/kWh is not EUR\/MWh/);
  assert.match(text, /line 4: prices 13\.47;13,47 are not German numbers/);
});
