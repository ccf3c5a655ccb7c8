/**
 * The TSOs' calendars of post-delivery corrections (lib/domain/tso_calendars.ts,
 * docs/post-delivery.md) on every day of 2026 and 2027, against tables written here by hand from
 * each TSO's published rule: the statutory holidays of every state (TenneT, and 50Hertz and
 * TransnetBW until configured), Amprion's fixed list (the same plus 24 and 31 December). The
 * expected deadline of every delivery day is computed here from those tables with plain `Date`
 * arithmetic, not with the module's code. Then the module's statutory list is held against
 * npm:date-holidays' public holidays of the 16 states for 2025–2035 (with Berlin's one-off days).
 */
import assert from "node:assert/strict";
import Holidays from "date-holidays";
import {
  CALENDAR_TSOS,
  correctionDeadline,
  nonWorkingReason,
  tsoCalendar,
} from "../../lib/domain/tso_calendars.ts";

const TENNET = "10XDE-EON-NETZ-C";
const AMPRION = "10XDE-RWENET---W";
const HERTZ = "10XDE-VE-TRANSMK";
const TRANSNET = "10XDE-ENBW--TNGX";

/** Every statutory holiday of any state, 2026, 2027 and 1 January 2028, by hand. */
const STATUTORY: Record<string, string> = {
  "2026-01-01": "New Year's Day", // Thu
  "2026-01-06": "Epiphany", // Tue
  "2026-03-08": "International Women's Day", // Sun
  "2026-04-03": "Good Friday", // Easter 5 April 2026
  "2026-04-06": "Easter Monday",
  "2026-05-01": "Labour Day", // Fri
  "2026-05-14": "Ascension Day", // Thu
  "2026-05-25": "Whit Monday",
  "2026-06-04": "Corpus Christi", // Thu
  "2026-08-15": "Assumption Day", // Sat
  "2026-09-20": "World Children's Day", // Sun
  "2026-10-03": "German Unity Day", // Sat
  "2026-10-31": "Reformation Day", // Sat
  "2026-11-01": "All Saints' Day", // Sun
  "2026-11-18": "Repentance and Prayer Day", // Wed
  "2026-12-25": "Christmas Day", // Fri
  "2026-12-26": "Second Day of Christmas", // Sat
  "2027-01-01": "New Year's Day", // Fri
  "2027-01-06": "Epiphany", // Wed
  "2027-03-08": "International Women's Day", // Mon
  "2027-03-26": "Good Friday", // Easter 28 March 2027
  "2027-03-29": "Easter Monday",
  "2027-05-01": "Labour Day", // Sat
  "2027-05-06": "Ascension Day", // Thu
  "2027-05-17": "Whit Monday",
  "2027-05-27": "Corpus Christi", // Thu
  "2027-08-15": "Assumption Day", // Sun
  "2027-09-20": "World Children's Day", // Mon
  "2027-10-03": "German Unity Day", // Sun
  "2027-10-31": "Reformation Day", // Sun
  "2027-11-01": "All Saints' Day", // Mon
  "2027-11-17": "Repentance and Prayer Day", // Wed
  "2027-12-25": "Christmas Day", // Sat
  "2027-12-26": "Second Day of Christmas", // Sun
  "2028-01-01": "New Year's Day", // Sat
};

/** Amprion's list: the same days plus 24 and 31 December. */
const AMPRION_LIST: Record<string, string> = {
  ...STATUTORY,
  "2026-12-24": "Christmas Eve (24 December)", // Thu
  "2026-12-31": "New Year's Eve (31 December)", // Thu
  "2027-12-24": "Christmas Eve (24 December)", // Fri
  "2027-12-31": "New Year's Eve (31 December)", // Fri
};

const TABLE: Record<string, Record<string, string>> = {
  [TENNET]: STATUTORY,
  [AMPRION]: AMPRION_LIST,
  [HERTZ]: STATUTORY,
  [TRANSNET]: STATUTORY,
};

/** `YYYY-MM-DD` plus `n` days, by `Date` in UTC (no zone involved). */
const plus = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const isWeekend = (day: string) => [0, 6].includes(new Date(`${day}T00:00:00Z`).getUTCDay());

/** Every day from `from` to `to`, inclusive. */
function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = plus(d, 1)) out.push(d);
  return out;
}

/** 16:00 Berlin of `day` in UTC: CET (+1) outside, CEST (+2) inside the summer time, by hand. */
function sixteenBerlin(day: string): string {
  // Summer time 2026: 29 March – 24 October; 2027: 28 March – 30 October (last Sundays).
  const summer = (day >= "2026-03-29" && day <= "2026-10-24") ||
    (day >= "2027-03-28" && day <= "2027-10-30");
  return `${day}T${summer ? "14" : "15"}:00:00Z`;
}

for (const tso of [TENNET, AMPRION, HERTZ, TRANSNET]) {
  const name = tsoCalendar(tso).name;
  Deno.test(`TSO calendar ${name}: every day of 2026 and 2027 as the table by hand`, () => {
    const list = TABLE[tso];
    const cal = tsoCalendar(tso);
    const wrong: string[] = [];
    for (const day of days("2026-01-01", "2027-12-31")) {
      const expected = list[day] ?? (isWeekend(day) ? "weekend" : null);
      const got = nonWorkingReason(cal, Temporal.PlainDate.from(day));
      if (got !== expected) wrong.push(`${day}: ${got} ≠ ${expected}`);
    }
    assert.deepEqual(wrong, []);
  });

  Deno.test(`TSO calendar ${name}: the deadline of every delivery day of 2026 and 2027`, () => {
    const list = TABLE[tso];
    const wrong: string[] = [];
    for (const day of days("2026-01-01", "2027-12-31")) {
      let next = plus(day, 1);
      while (list[next] || isWeekend(next)) next = plus(next, 1);
      // TenneT: at the latest the third calendar day after delivery.
      const cap = plus(day, 3);
      const date = tso === TENNET && cap < next ? cap : next;
      const d = correctionDeadline(tso, day);
      const got = `${d.date} ${d.deadline.toString()} ${d.capped}`;
      const want = `${date} ${sixteenBerlin(date)} ${date !== next}`;
      if (got !== want) wrong.push(`${day}: ${got} ≠ ${want}`);
    }
    assert.deepEqual(wrong, []);
  });
}

Deno.test("TSO calendars: 24 and 31 December are working days at TenneT, not at Amprion", () => {
  for (const day of ["2026-12-24", "2026-12-31", "2027-12-24", "2027-12-31"]) {
    const date = Temporal.PlainDate.from(day);
    assert.equal(nonWorkingReason(tsoCalendar(TENNET), date), null, day);
    assert.match(nonWorkingReason(tsoCalendar(AMPRION), date) ?? "", /Eve/, day);
  }
  // Delivery Wed 23 Dec 2026: TenneT Thu 24 Dec, Amprion Mon 28 Dec.
  assert.equal(correctionDeadline(TENNET, "2026-12-23").local, "Thu 24 Dec 2026 16:00");
  const a = correctionDeadline(AMPRION, "2026-12-23");
  assert.equal(a.local, "Mon 28 Dec 2026 16:00");
  assert.deepEqual(a.skipped.map((s) => s.reason), [
    "Christmas Eve (24 December)",
    "Christmas Day",
    "Second Day of Christmas",
    "weekend",
  ]);
});

Deno.test("TSO calendars: Reformation Day on a weekday is no working day at any of the four", () => {
  for (const day of ["2025-10-31", "2028-10-31"]) {
    for (const tso of CALENDAR_TSOS) {
      assert.equal(
        nonWorkingReason(tsoCalendar(tso), Temporal.PlainDate.from(day)),
        "Reformation Day",
      );
    }
  }
  // Delivery Thu 30 Oct 2025: Amprion until Mon 3 Nov; TenneT capped on Sun 2 Nov.
  assert.equal(correctionDeadline(AMPRION, "2025-10-30").local, "Mon 3 Nov 2025 16:00");
  const t = correctionDeadline(TENNET, "2025-10-30");
  assert.deepEqual([t.local, t.capped, t.working_day], [
    "Sun 2 Nov 2025 16:00",
    true,
    "2025-11-03",
  ]);
});

Deno.test("TSO calendars: Good Friday, and TenneT's cap after Easter (Thursday before: Sunday)", () => {
  const t26 = correctionDeadline(TENNET, "2026-04-02");
  assert.equal(t26.deadline.toString(), "2026-04-05T14:00:00Z");
  assert.deepEqual([t26.local, t26.capped, t26.working_day], [
    "Sun 5 Apr 2026 16:00",
    true,
    "2026-04-07",
  ]);
  assert.match(t26.rule, /StromNZV § 5 \(3\)/);
  assert.match(t26.rule, /Fri 3 Apr 2026: Good Friday/);
  assert.match(t26.rule, /Mon 6 Apr 2026: Easter Monday/);
  assert.match(t26.rule, /third calendar day after delivery caps it: until Sun 5 Apr 2026 16:00/);
  assert.match(t26.rule, /no clock time is published for the cap; 16:00 is taken/);
  // Amprion has no cap: Tuesday after Easter.
  assert.equal(correctionDeadline(AMPRION, "2026-04-02").local, "Tue 7 Apr 2026 16:00");
  // 2027: the Sunday of the cap is the spring clock change (16:00 CEST = 14:00 UTC).
  assert.equal(
    correctionDeadline(TENNET, "2027-03-25").deadline.toString(),
    "2027-03-28T14:00:00Z",
  );
});

Deno.test("TSO calendars: 50Hertz and TransnetBW say they use the statutory rule", () => {
  for (const tso of [HERTZ, TRANSNET]) {
    const d = correctionDeadline(tso, "2026-11-27");
    assert.equal(d.calendar, "statutory");
    assert.match(d.rule, /does not hold; until its days are configured \(tso_non_working_days\)/);
    assert.match(d.rule, /public holidays of every federal state/);
  }
  assert.equal(correctionDeadline(TENNET, "2026-11-27").calendar, "published");
  // Any other TSO: the statutory rule, named with its EIC.
  const other = correctionDeadline("10X1001A1001A361", "2026-11-27");
  assert.equal(other.calendar, "statutory");
  assert.match(other.rule, /no calendar of TSO 10X1001A1001A361 is held here/);
});

Deno.test("TSO calendars: configured non-working days move the deadline, TenneT's cap stays", () => {
  // Fri 27 Nov 2026, Monday 30 Nov configured off: Amprion Tue 1 Dec; TenneT capped Mon 30 Nov.
  const a = correctionDeadline(AMPRION, "2026-11-27", ["2026-11-30"]);
  assert.equal(a.local, "Tue 1 Dec 2026 16:00");
  assert.deepEqual(a.skipped.at(-1), { date: "2026-11-30", reason: "configured non-working day" });
  assert.match(a.rule, /plus 1 configured non-working days/);
  const t = correctionDeadline(TENNET, "2026-11-27", ["2026-11-30"]);
  assert.deepEqual([t.local, t.capped], ["Mon 30 Nov 2026 16:00", true]);
  // Without: Monday.
  assert.equal(correctionDeadline(AMPRION, "2026-11-27").local, "Mon 30 Nov 2026 16:00");
});

Deno.test("TSO calendars: the statutory list equals date-holidays' public holidays of the 16 states, 2025–2035", () => {
  const statutory = tsoCalendar(HERTZ);
  const states = Object.keys(new Holidays().getStates("DE") ?? {});
  assert.equal(states.length, 16);
  const sunday = (d: string) => new Date(`${d}T00:00:00Z`).getUTCDay() === 0;
  for (let year = 2025; year <= 2035; year++) {
    const library = new Set<string>();
    for (const st of states) {
      for (const h of new Holidays("DE", st).getHolidays(year)) {
        if (h.type === "public" && !sunday(h.date.slice(0, 10))) library.add(h.date.slice(0, 10));
      }
    }
    const ours = new Set(
      days(`${year}-01-01`, `${year}-12-31`).filter((d) =>
        !sunday(d) &&
        ![null, "weekend"].includes(nonWorkingReason(statutory, Temporal.PlainDate.from(d)))
      ),
    );
    assert.deepEqual([...ours].sort(), [...library].sort(), `year ${year}`);
  }
});
