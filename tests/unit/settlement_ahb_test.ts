/**
 * MSCONS as the EDI@Energy AHB FV2504 (2.4c) writes it, on the two interchanges of
 * tests/fixtures/mscons/ahb (a copy of ../shared/data/mscons/ahb, built after the handbook's
 * tables): no unit in `QTY` (the OBIS code's), the Prüfidentifikator deciding what a message is,
 * the qualifiers kept per value, the monthly settlement series with its version; and the price
 * files of the TSOs' data service beside the table download (tests/fixtures/rebap). Expectations
 * are read from the raw text here, not from the parser.
 */
import assert from "node:assert/strict";
import { parseMscons } from "../../lib/settlement/mscons.ts";
import { refusal } from "../support/issues.ts";
import { QUALITY } from "../../lib/settlement/mscons_codes.ts";
import { readPriceFile } from "../../lib/settlement/price_files.ts";
import { splitByDay } from "../../lib/settlement/day_split.ts";

const FIX = new URL("../fixtures/", import.meta.url);
const read = (p: string) => Deno.readTextFileSync(new URL(p, FIX));
const LG = read("mscons/ahb/MSCONS_13025_Lastgang_Marktlokation_synthetic.txt");
const SZ = read("mscons/ahb/MSCONS_13003_Summenzeitreihe_synthetic.txt");

/** The quantities of the message around `loc` (qualifier, value), from the raw text. */
function rawQuantities(text: string, loc: string): [string, number][] {
  const from = text.indexOf(`LOC+172+${loc}'`);
  const to = text.indexOf("UNT+", from);
  return [...text.slice(from, to).matchAll(/QTY\+([0-9Z]+):([0-9.]+)'/g)].map((m) => [
    m[1],
    Number(m[2]),
  ]);
}

Deno.test("AHB 13025: two market locations, no unit in QTY, energy per day = Σ QTY", () => {
  const r = parseMscons(LG);
  assert.equal(r.reference, "LG270329A");
  assert.deepEqual(r.series.map((s) => s.owner), [
    { kind: "market_location", malo_id: "51234567895" },
    { kind: "market_location", malo_id: "59876543215" },
  ]);
  for (const s of r.series) {
    const id = s.owner.kind === "market_location" ? s.owner.malo_id : "";
    const raw = rawQuantities(LG, id);
    // 28 March 2027 in Berlin: 2027-03-27T23:00Z – 2027-03-28T22:00Z, 92 quarter-hours.
    assert.equal(new Date(s.start).toISOString(), "2027-03-27T23:00:00.000Z");
    assert.equal(s.kwh.length, 92);
    assert.equal(raw.length, 92);
    const days = splitByDay(s.start, s.kwh);
    assert.deepEqual(days.map((d) => [d.day, d.values.size]), [["2027-03-28", 92]]);
    const sum = [...days[0].values.values()].reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(sum - raw.reduce((a, [, v]) => a + v, 0)) < 1e-9, `${id}: ${sum}`);
  }
});

Deno.test("AHB 13025: the substitute value keeps its method and reason, provisional values their kind", () => {
  const [first, second] = parseMscons(LG).series;
  // QTY+67 at 2027-03-28 06:30Z: 7.5 hours after the day's start, quarter-hour 30.
  const sub = rawQuantities(LG, "51234567895").findIndex(([q]) => q === "67");
  assert.equal(sub, 30);
  assert.equal(first.quality?.[30], QUALITY.SUBSTITUTE);
  assert.equal(first.quality?.filter((q) => q !== QUALITY.TRUE).length, 1);
  assert.deepEqual(first.substitutes, { 30: { method: "Z92", reason: "Z75" } });
  assert.equal(first.kwh[30], 18.5);
  // The second location's last four quarter-hours are QTY+Z18.
  assert.deepEqual(
    [...second.quality!].map((q, i) => [q, i]).filter(([q]) => q !== QUALITY.TRUE),
    [88, 89, 90, 91].map((i) => [QUALITY.PROVISIONAL, i]),
  );
  assert.equal(second.substitutes, undefined);
});

Deno.test("AHB 13003: a sum of a MaBiS metering point; the missing value is NaN, marked missing", () => {
  const r = parseMscons(SZ);
  assert.equal(r.series.length, 1);
  const s = r.series[0];
  assert.deepEqual(s.owner, {
    kind: "metering_point_sum",
    metering_point: "DE0123456000000000000000000000001",
  });
  assert.equal(s.kwh.length, 92);
  const raw = rawQuantities(SZ, "DE0123456000000000000000000000001");
  const missing = raw.findIndex(([q]) => q === "Z30");
  assert.equal(missing, 50); // 2027-03-28 11:30Z
  assert.ok(Number.isNaN(s.kwh[missing]));
  assert.equal(s.quality?.[missing], QUALITY.MISSING);
  const known = raw.filter(([q]) => q === "220").reduce((a, [, v]) => a + v, 0);
  assert.ok(
    Math.abs(s.kwh.filter((v) => !Number.isNaN(v)).reduce((a, b) => a + b, 0) - known) < 1e-6,
  );
});

Deno.test("AHB: a feed-in sum (OBIS 1-1:2.29.0) is negative; MWH still read; 2.4b's KWH still read", () => {
  const feedIn = parseMscons(SZ.replace("PIA+5+1-1?:1.29.0:SRW'", "PIA+5+1-1?:2.29.0:SRW'"));
  assert.equal(feedIn.series[0].kwh[0], -4250);
  const mwh = parseMscons(LG.replace("QTY+220:8.460'", "QTY+220:0.00846:MWH'"));
  assert.ok(mwh.series.length === 2);
  // A market location's series keeps its metered magnitude whatever its OBIS direction.
  const ml = parseMscons(LG.replace("PIA+5+1-1?:1.29.0:SRW'", "PIA+5+1-1?:2.29.0:SRW'"));
  assert.ok(ml.series[0].kwh.every((v) => v >= 0));
});

Deno.test("AHB: an unknown OBIS code, a non-energy unit, a negative value, a bad metering point: in words", () => {
  const obis = refusal(() =>
    parseMscons(LG.replace("PIA+5+1-1?:1.29.0:SRW'", "PIA+5+1-1?:3.29.0:SRW'"))
  );
  assert.equal(obis[0].type, "value_error.unit");
  assert.match(
    obis[0].msg,
    /message 1 \(UNH\+1, BGM LG270329A1\), segment 15 \(QTY\+220:12\.500\), market location 51234567895: the quantity has no unit and OBIS code 1-1:3\.29\.0 is reactive energy per measuring period \(kvarh\), not active energy; we take 1-1:1\.29\.0 or 1-1:2\.29\.0/,
  );
  const unknown = refusal(() =>
    parseMscons(LG.replace("PIA+5+1-1?:1.29.0:SRW'", "PIA+5+1-1?:9.99.9:SRW'"))
  );
  assert.match(unknown[0].msg, /OBIS code 1-1:9\.99\.9 is not one we know/);
  const noPia = refusal(() => parseMscons(LG.replace("PIA+5+1-1?:1.29.0:SRW'", "")));
  assert.match(noPia[0].msg, /the quantity has no unit and its line no OBIS code/);
  const d54 = refusal(() => parseMscons(LG.replace("QTY+220:8.460'", "QTY+220:8.460:D54'")));
  assert.match(d54[0].msg, /unit D54 is watt per square metre \(UN\/ECE Recommendation 20\)/);
  const kwt = refusal(() => parseMscons(LG.replace("QTY+220:8.460'", "QTY+220:8.460:KWT'")));
  assert.match(kwt[0].msg, /unit KWT is kilowatt, a power/);
  const neg = refusal(() => parseMscons(LG.replace("QTY+220:8.460'", "QTY+220:-8.460'")));
  assert.match(
    neg[0].msg,
    /the quantity -8\.460 is negative; the handbook allows ≥ 0 \(MSCONS AHB 13025/,
  );
  const qual = refusal(() => parseMscons(LG.replace("QTY+220:8.460'", "QTY+Z99:8.460'")));
  assert.match(qual[0].msg, /quantity qualifier Z99 is not one we read/);
  const point = refusal(() =>
    parseMscons(SZ.replace("LOC+172+DE0123456000000000000000000000001'", "LOC+172+51234567895'"))
  );
  assert.match(
    point[0].msg,
    /segment 10 \(LOC\+172\+51234567895\), MaBiS metering point 51234567895: a balancing-group sum \(Prüfidentifikator 13003\) names a MaBiS metering point/,
  );
});

/** The 13003 sum as a monthly settlement series (`BGM+BK`) of version `v` (format 304). */
function monthly(v: string, kwh = "4250.000"): string {
  return SZ.replace("BGM+Z39+", "BGM+BK+")
    .replace(
      "LOC+172+DE0123456000000000000000000000001'",
      `LOC+172+DE0123456000000000000000000000001'DTM+492:202703:610'DTM+293:${v}?+00:304'`,
    )
    .replaceAll(/QTY\+(220|Z30):[0-9.]+'/g, "QTY+79:4250.000'")
    .replace("QTY+79:4250.000'", `QTY+79:${kwh}'`);
}

Deno.test("AHB 13003 BGM+BK: the monthly series carries its version; its month and version are checked", () => {
  const s = parseMscons(monthly("20270415120000")).series[0];
  assert.equal(s.version, "2027-04-15T12:00:00.000Z");
  assert.ok(s.kwh.every((v) => v === 4250) && s.quality === undefined);
  const noVersion = refusal(() =>
    parseMscons(monthly("20270415120000").replace(/DTM\+293:[^']+'/, ""))
  );
  assert.match(
    noVersion[0].msg,
    /a monthly settlement series \(BGM\+BK\) needs its version \(DTM\+293/,
  );
  const wrongMonth = refusal(() =>
    parseMscons(monthly("20270415120000").replace("DTM+492:202703:610", "DTM+492:202704:610"))
  );
  assert.match(wrongMonth[0].msg, /are not all in the settlement month 2027-04 \(Europe\/Berlin\)/);
});

Deno.test("a gas message is refused by its Prüfidentifikator; one without PID is read as before", () => {
  const gas = refusal(() => parseMscons(LG.replaceAll("RFF+Z13:13025'", "RFF+Z13:13008'")));
  assert.match(
    gas[0].msg,
    /Prüfidentifikator 13008 \(Messwert Lastgang \(Gas\)\) is a gas message/,
  );
  assert.equal(parseMscons(LG.replaceAll("RFF+Z13:13025'", "")).series.length, 2);
});

const REBAP = read("rebap/reBAP_2027-03_synthetic.csv");
const REBAP_DS = read("rebap/reBAP_2027-03_synthetic_datenservice.csv");
const ID_AEP = read("rebap/ID-AEP_2027-03_synthetic_datenservice.csv");

Deno.test("reBAP: the table download and the data service give the same price for all 2,972 quarter-hours", () => {
  const a = readPriceFile(REBAP), b = readPriceFile(REBAP_DS);
  assert.deepEqual([a.layout, b.layout], ["rebap", "rebap_datenservice"]);
  assert.equal(a.points.length, 2972);
  const byStart = new Map(b.points.map((p) => [p.start, p]));
  assert.equal(byStart.size, 2972);
  for (const p of a.points) assert.deepEqual(byStart.get(p.start), p);
});

Deno.test("ID AEP: 2,972 quarter-hours in UTC, N.A. read as null", () => {
  const f = readPriceFile(ID_AEP);
  assert.equal(f.layout, "id_aep");
  assert.equal(f.points.length, 2972);
  const na = f.points.find((p) => p.start === Date.parse("2027-03-16T14:00Z"))!;
  assert.deepEqual([na.short, na.long], [null, null]);
  // The first row: 2027-02-28;23:00;UTC;23:15;UTC;51,620.
  assert.deepEqual(f.points[0], {
    start: Date.parse("2027-02-28T23:00Z"),
    short: 51.62,
    long: 51.62,
  });
  // The named-zone header some clients write is the same layout.
  const named = ID_AEP.replace(
    "Zeitzone;(Uhrzeit) bis;Zeitzone;",
    "Zeitzone von;(Uhrzeit) bis;Zeitzone bis;",
  );
  assert.equal(readPriceFile(named).points.length, 2972);
});

Deno.test("price files: an operational reBAP, a zone, a unit, a layout we do not know: each in words", () => {
  const lines = REBAP_DS.split("\n");
  const bad = refusal(() =>
    readPriceFile([
      lines[0],
      lines[1].replace("Qualitätsgesichert", "Betrieblich"),
      lines[2].replace(";UTC;", ";CET;"),
      lines[3].replace("EUR/MWh", "ct/kWh"),
      lines[4].replace(";23:45;00:00;", ";23:45;00:15;"),
    ].join("\n"))
  ).map((i) => i.msg).join("\n");
  assert.match(
    bad,
    /line 2: Datentyp Betrieblich is not Qualitätsgesichert: the data service publishes the reBAP only quality-assured/,
  );
  assert.match(bad, /line 3: zone CET is not UTC/);
  assert.match(bad, /line 4: unit ct\/kWh is not EUR\/MWh/);
  assert.match(bad, /line 5: bis 00:15 is not 15 minutes after von 23:45 \(00:00\)/);
  const unit = refusal(() => readPriceFile(ID_AEP.replace("ID AEP in €/MWh", "ID AEP in ct/kWh")));
  assert.match(
    unit[0].msg,
    /line 1: not a price file we know \(Datum von;\(Uhrzeit\) von;Zeitzone;\(Uhrzeit\) bis;Zeitzone;ID AEP in ct\/kWh\); we take/,
  );
});
