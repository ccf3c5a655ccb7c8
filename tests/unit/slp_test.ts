import assert from "node:assert/strict";
import { addDays, InvalidDeliveryDayError } from "../../lib/domain/delivery_day.ts";
import { dayTypeOf, seasonOf, UnknownHolidayRegionError } from "../../lib/domain/slp/day_type.ts";
import {
  dynamisationFactor,
  generateProfileForecast,
  InvalidAnnualEnergyError,
  PROFILE_CODES,
  type ProfileCode,
  profileShape,
  tableDayOf,
  tableIndexOfQuarterHours,
  UnknownProfileError,
} from "../../lib/domain/slp/profile.ts";
import {
  loadSlpTables,
  SlpTableError,
  tableDay1999,
  tableDay2025,
} from "../../lib/domain/slp/tables.ts";
import { withTempDirSync } from "../support/temp.ts";

const close = (actual: number, expected: number, what: string) =>
  assert.ok(
    Math.abs(actual - expected) <= 1e-12 * Math.max(1, Math.abs(expected)),
    `${what}: ${actual} != ${expected}`,
  );

/** Asserts `shape` is `table` (96 values) dynamised by `f` and mapped through `index`. */
function assertMapped(shape: Float64Array, table: Float64Array, f: number, index: number[]) {
  assert.equal(shape.length, index.length);
  index.forEach((q, i) => close(shape[i], table[q] * f, `quarter-hour ${i} (table ${q})`));
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

Deno.test("slp tables: raw 1999 and 2025 values in table units", () => {
  const tables = loadSlpTables();
  // BDEW H0, winter working day, 00:00-00:15: 67.6 W per 1,000 kWh/a.
  assert.equal(tableDay1999(tables, "H0", "winter", "workday")[0], 0.0676);
  assert.equal(tableDay1999(tables, "H0", "winter", "saturday")[0], 0.07084);
  assert.equal(tableDay1999(tables, "H0", "winter", "sunday")[0], 0.08744);
  // h25.csv, Januar/WT, 00:00-00:15: 20.126 kWh per 1,000,000 kWh/a.
  assert.equal(tableDay2025(tables, "H25", 1, "workday")[0], 20.126);
  assert.equal(tableDay2025(tables, "H25", 12, "sunday")[95], 21.995);
  assert.equal(loadSlpTables(), tables, "tables are loaded once");
});

Deno.test("slp: H0 winter working day 00:00-00:15 is 67.6 W per 1,000 kWh/a before dynamisation", () => {
  const t = tableDayOf("H0", "2026-01-07"); // Wednesday, winter
  assert.equal(t.dayType, "workday");
  assert.equal(t.period, "winter");
  close(t.values[0] * 1000 * 1000, 67.6, "W per 1,000 kWh/a");
  close(t.dynamisation, dynamisationFactor(7), "F(7)");
  const shape = profileShape("H0", "2026-01-07");
  close(shape[0], 0.0676 / 1000 * dynamisationFactor(7), "dynamised");
  // G0 is not dynamised.
  assert.equal(tableDayOf("G0", "2026-01-07").dynamisation, 1);
});

Deno.test("slp: dynamisation factor follows the BDEW polynomial", () => {
  close(dynamisationFactor(1), -3.92e-10 + 3.2e-7 - 7.02e-5 + 2.1e-3 + 1.24, "F(1)");
  const t = 200;
  const expected = -3.92e-10 * t ** 4 + 3.2e-7 * t ** 3 - 7.02e-5 * t ** 2 + 2.1e-3 * t + 1.24;
  close(dynamisationFactor(t), expected, "F(200)");
});

Deno.test("slp: a whole year (2026) of H0, G0, H25 sums to the annual energy within 1 %", () => {
  for (const code of ["H0", "G0", "H25"] as const) {
    let kwh = 0;
    let quarterHours = 0;
    for (let day = "2026-01-01"; day < "2027-01-01"; day = addDays(day, 1)) {
      const kw = generateProfileForecast(code, 1000, day);
      quarterHours += kw.length;
      for (const v of kw) kwh += v * 0.25;
    }
    assert.equal(quarterHours, 365 * 96);
    assert.ok(Math.abs(kwh - 1000) < 10, `${code}: ${kwh.toFixed(2)} kWh for 1,000 kWh/a`);
  }
});

Deno.test("slp: seasons of the 1999 profiles", () => {
  const season = (d: string) => seasonOf(Temporal.PlainDate.from(d));
  assert.equal(season("2026-03-20"), "winter");
  assert.equal(season("2026-03-21"), "transition");
  assert.equal(season("2026-05-14"), "transition");
  assert.equal(season("2026-05-15"), "summer");
  assert.equal(season("2026-09-14"), "summer");
  assert.equal(season("2026-09-15"), "transition");
  assert.equal(season("2026-10-31"), "transition");
  assert.equal(season("2026-11-01"), "winter");
});

Deno.test("slp: public holidays use the Sunday profile, 24/31 Dec the Saturday profile", () => {
  const type = (d: string, region?: string) => dayTypeOf(Temporal.PlainDate.from(d), region);
  assert.equal(type("2026-12-25"), "sunday"); // Friday, 1. Weihnachtstag
  assert.equal(type("2026-01-06", "DE-BY"), "sunday"); // Tuesday, Heilige Drei Könige
  assert.equal(type("2026-01-06", "DE-NW"), "workday");
  assert.equal(type("2026-01-06"), "workday");
  assert.equal(type("2026-12-24"), "saturday"); // Thursday
  assert.equal(type("2026-12-31", "DE-BY"), "saturday"); // Thursday
  assert.equal(type("2028-12-24"), "sunday"); // a Sunday stays Sunday
  assert.equal(type("2026-01-10"), "saturday");
  assert.equal(type("2026-01-11"), "sunday");

  const tables = loadSlpTables();
  const all = range(0, 96);
  const f359 = dynamisationFactor(359);
  assertMapped(
    profileShape("H0", "2026-12-25"),
    tableDay1999(tables, "H0", "winter", "sunday").map((v) => v / 1000),
    f359,
    all,
  );
  assertMapped(
    profileShape("H25", "2026-12-25"),
    tableDay2025(tables, "H25", 12, "sunday").map((v) => v * 4 / 1e6),
    f359,
    all,
  );
  const g0 = (dayType: "workday" | "sunday") =>
    tableDay1999(tables, "G0", "winter", dayType).map((v) => v / 1000);
  assertMapped(profileShape("G0", "2026-01-06", "DE-BY"), g0("sunday"), 1, all);
  assertMapped(profileShape("G0", "2026-01-06", "DE-NW"), g0("workday"), 1, all);
  assertMapped(
    profileShape("G0", "2026-12-24"),
    tableDay1999(tables, "G0", "winter", "saturday").map((v) => v / 1000),
    1,
    all,
  );
});

Deno.test("slp: clock change in spring drops the local hour 02:00-03:00 (92 values)", () => {
  const index = [...range(0, 8), ...range(12, 96)];
  assert.deepEqual([...tableIndexOfQuarterHours("2026-03-29")], index);
  const table = tableDay1999(loadSlpTables(), "H0", "transition", "sunday").map((v) => v / 1000);
  const shape = profileShape("H0", "2026-03-29");
  assert.equal(shape.length, 92);
  assertMapped(shape, table, dynamisationFactor(88), index);
  assert.equal(generateProfileForecast("S25", 4000, "2026-03-29").length, 92);
});

Deno.test("slp: clock change in autumn repeats the local hour 02:00-03:00 (100 values)", () => {
  const index = [...range(0, 12), ...range(8, 96)];
  assert.deepEqual([...tableIndexOfQuarterHours("2026-10-25")], index);
  const tables = loadSlpTables();
  const shape = profileShape("G0", "2026-10-25");
  assert.equal(shape.length, 100);
  assertMapped(
    shape,
    tableDay1999(tables, "G0", "transition", "sunday").map((v) => v / 1000),
    1,
    index,
  );
  assert.deepEqual([...shape.slice(12, 16)], [...shape.slice(8, 12)]);
  const h25 = profileShape("H25", "2026-10-25");
  const table25 = tableDay2025(tables, "H25", 10, "sunday").map((v) => v * 4 / 1e6);
  assertMapped(h25, table25, dynamisationFactor(298), index);
});

Deno.test("slp: normal winter and summer days have 96 values for every profile", () => {
  for (const day of ["2026-01-07", "2026-07-15"]) {
    assert.deepEqual([...tableIndexOfQuarterHours(day)], range(0, 96));
    for (const code of PROFILE_CODES) {
      const shape = profileShape(code, day);
      assert.equal(shape.length, 96, `${code} ${day}`);
      assert.ok(shape.every((v) => Number.isFinite(v) && v >= 0), `${code} ${day}`);
    }
  }
  const summer = tableDay1999(loadSlpTables(), "G0", "summer", "workday").map((v) => v / 1000);
  assertMapped(profileShape("G0", "2026-07-15"), summer, 1, range(0, 96));
});

Deno.test("slp: forecast is the shape times the annual energy; shapes are copies", () => {
  const shape = profileShape("L0", "2026-07-15");
  const forecast = generateProfileForecast("L0", 3500, "2026-07-15");
  forecast.forEach((v, i) => close(v, shape[i] * 3500, `quarter-hour ${i}`));
  shape[0] = -1;
  assert.notEqual(profileShape("L0", "2026-07-15")[0], -1);
  assert.deepEqual(generateProfileForecast("L0", 0, "2026-07-15"), new Array(96).fill(0));
});

Deno.test("slp: unknown profile, bad day, bad region and bad energy throw named errors", () => {
  const err = (ctor: new (...a: never[]) => Error, code: string) => (e: unknown) => {
    assert.ok(e instanceof ctor, String(e));
    assert.equal((e as { code?: string }).code, code);
    return true;
  };
  assert.throws(
    () => profileShape("H1" as ProfileCode, "2026-01-07"),
    err(UnknownProfileError, "ERR_SLP_PROFILE"),
  );
  assert.throws(
    () => generateProfileForecast("h0" as ProfileCode, 1000, "2026-01-07"),
    err(UnknownProfileError, "ERR_SLP_PROFILE"),
  );
  for (const day of ["2026-02-30", "tomorrow", "2026-1-7", ""]) {
    assert.throws(
      () => profileShape("H0", day),
      err(InvalidDeliveryDayError, "ERR_DELIVERY_DAY"),
    );
  }
  for (const region of ["DE-XX", "XX", "Bayern", ""]) {
    assert.throws(
      () => profileShape("H0", "2026-01-07", region),
      err(UnknownHolidayRegionError, "ERR_SLP_REGION"),
    );
  }
  for (const kwh of [-1, NaN, Infinity]) {
    assert.throws(
      () => generateProfileForecast("H0", kwh, "2026-01-07"),
      err(InvalidAnnualEnergyError, "ERR_SLP_ANNUAL_KWH"),
    );
  }
});

Deno.test("slp tables: a malformed table is refused with SlpTableError", () => {
  withTempDirSync((dir) => {
    const source = new URL("../../data/bdew/", import.meta.url);
    for (const name of ["selp_series.csv", "h25.csv", "g25.csv", "l25.csv", "p25.csv", "s25.csv"]) {
      Deno.copyFileSync(new URL(name, source), `${dir}/${name}`);
    }
    const good = loadSlpTables(dir);
    assert.equal(tableDay1999(good, "H0", "winter", "workday")[0], 0.0676);
    const bad = `${dir}/bad`;
    Deno.mkdirSync(bad);
    for (const entry of Deno.readDirSync(dir)) {
      if (entry.isFile) Deno.copyFileSync(`${dir}/${entry.name}`, `${bad}/${entry.name}`);
    }
    const p25 = Deno.readTextFileSync(`${bad}/p25.csv`).replace("00:15-00:30,", "00:15-00:30,x");
    Deno.writeTextFileSync(`${bad}/p25.csv`, p25);
    assert.throws(() => loadSlpTables(bad), (e: unknown) => {
      assert.ok(e instanceof SlpTableError);
      assert.equal(e.code, "ERR_SLP_TABLE");
      assert.match(e.message, /p25\.csv: row 4/);
      return true;
    });
    Deno.removeSync(`${bad}/selp_series.csv`);
    assert.throws(() => loadSlpTables(bad), SlpTableError);
  }, "slp_test_");
});
