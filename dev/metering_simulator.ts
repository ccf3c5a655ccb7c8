/**
 * The metering simulator of the demo (docs/settlement.md): what a DSO sends the day after
 * delivery — the metered quarter-hour energy of market locations as an EDIFACT MSCONS interchange
 * written as the EDI@Energy AHB FV2504 says (message version 2.4c, Prüfidentifikator 13025
 * `RFF+Z13`, `BGM+Z48`, `LOC+172`, `PIA+5+1-1:1.29.0:SRW`, `QTY+220` without a unit: the OBIS code
 * says kWh; `DTM+163/164` in format 303, UTC; one substitute value `QTY+67` with its method
 * `STS+Z32` interpolation and reason `STS+Z40` communication failure) — and what the TSOs publish
 * as the imbalance price: the morning after, only the operational AEP estimate (the data service's
 * layout, UTC rows) and the intraday index price ID AEP; the reBAP, weeks later after quality
 * assurance (their table layout, German numbers, `CET`/`CEST` per row). Written into a folder, the
 * service's actuals inbox.
 *
 * The metered value is the expected power plus noise (deterministic: a seeded generator), so every
 * demo shows the same numbers for the same portfolio and day.
 * @module
 */
import { deliveryDay } from "../lib/domain/delivery_day.ts";

/** A metered location: its id and its expected average kW per quarter-hour of the day. */
export interface MeteredLocation {
  malo_id: string;
  kw: readonly number[];
  /** Relative noise (standard deviation), e.g. 0.08. */
  noise: number;
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function rng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A normally distributed number (Box–Muller) from `random`. */
function gauss(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** `CCYYMMDDHHMM?+00` (format 303, UTC) of an instant. */
const f303 = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace(/[-T:]/g, "") + "?+00";

/**
 * The MSCONS interchange of `day` for `locations` (one message per location, as DSOs send them),
 * and the kWh it carries per location (what the settlement must see). The first location's value
 * in the quarter-hour `substitute` (default 40: 10:00 Berlin in winter) is a substitute value.
 */
export function meteringInterchange(
  day: string,
  locations: readonly MeteredLocation[],
  seed = 7,
  substitute = 40,
): { text: string; kwh: Map<string, number[]> } {
  const random = rng(seed);
  const qh = deliveryDay(day).quarterHours.map((q) => q.epochMilliseconds);
  const ref = `DEMO${day.replaceAll("-", "")}`;
  const now = f303(Date.now());
  const out: string[] = [
    "UNA:+.? '",
    `UNB+UNOC:3+9900000000003:500+9900000000002:500+${now.slice(2, 8)}:${
      now.slice(8, 12)
    }+${ref}++TL'`,
  ];
  const kwh = new Map<string, number[]>();
  locations.forEach((loc, m) => {
    const values = loc.kw.map((kw) =>
      Math.max(0, Math.round(kw * (1 + loc.noise * gauss(random)) * 0.25 * 1000) / 1000)
    );
    kwh.set(loc.malo_id, values);
    const seg: string[] = [
      `UNH+${m + 1}+MSCONS:D:04B:UN:2.4c'`,
      `BGM+Z48+${ref}-${m + 1}+9'`,
      `DTM+137:${now}:303'`,
      "RFF+Z13:13025'",
      "NAD+MS+9900000000003::293'",
      "NAD+MR+9900000000002::293'",
      "UNS+D'",
      "NAD+DP'",
      `LOC+172+${loc.malo_id}'`,
      `DTM+163:${f303(qh[0])}:303'`,
      `DTM+164:${f303(qh[qh.length - 1] + 900_000)}:303'`,
      "LIN+1'",
      "PIA+5+1-1?:1.29.0:SRW'",
    ];
    values.forEach((v, i) => {
      const sub = m === 0 && i === substitute;
      seg.push(`QTY+${sub ? 67 : 220}:${v}'`, `DTM+163:${f303(qh[i])}:303'`);
      seg.push(`DTM+164:${f303(qh[i] + 900_000)}:303'`);
      if (sub) seg.push("STS+Z32++Z92'", "STS+Z40++Z75'");
    });
    seg.push(`UNT+${seg.length + 1}+${m + 1}'`);
    out.push(...seg);
  });
  out.push(`UNZ+${locations.length}+${ref}'`);
  return { text: out.join(""), kwh };
}

/** A German number with two decimals (`1.234,56`). */
const german = (x: number) =>
  x.toLocaleString("de-DE", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * A synthetic reBAP file of `day` in the TSOs' layout: around 90 EUR/MWh with a morning and an
 * evening peak, cheaper at noon, now and then negative; both directions equal.
 */
export function rebapFile(day: string, seed = 11): string {
  const rows = ["Datum;Zeitzone;von;bis;Einheit;reBAP unterdeckt;reBAP ueberdeckt"];
  const prices = rebapPrices(day, seed);
  deliveryDay(day).quarterHours.forEach((q, i) => {
    const t = q.toZonedDateTimeISO("Europe/Berlin");
    const end = t.add({ minutes: 15 });
    const d = `${String(t.day).padStart(2, "0")}.${String(t.month).padStart(2, "0")}.${t.year}`;
    const zone = t.offsetNanoseconds === 3.6e12 ? "CET" : "CEST";
    const hm = (z: Temporal.ZonedDateTime) => z.toPlainTime().toString().slice(0, 5);
    rows.push(`${d};${zone};${hm(t)};${hm(end)};EUR/MWh;${german(prices[i])};${german(prices[i])}`);
  });
  return rows.join("\n") + "\n";
}

/** The synthetic reBAP of `day`, EUR/MWh per quarter-hour (both directions equal). */
function rebapPrices(day: string, seed: number): number[] {
  const random = rng(seed);
  return deliveryDay(day).quarterHours.map((q) => {
    const t = q.toZonedDateTimeISO("Europe/Berlin");
    const h = t.hour + t.minute / 60;
    const base = 90 + 60 * Math.exp(-((h - 8) ** 2) / 4) + 80 * Math.exp(-((h - 19) ** 2) / 3) -
      70 * Math.exp(-((h - 13) ** 2) / 6);
    return Math.round((base + 40 * gauss(random)) * 100) / 100;
  });
}

/**
 * The TSOs' operational estimate of the imbalance price of `day` (AEP-Schätzer) in the data
 * service's layout (`Datum;Zeitzone;von;bis;Datenkategorie;Datentyp;Einheit;AEP-Schätzer;Status`,
 * UTC rows): the synthetic reBAP of {@link rebapFile} plus an estimation error, as it is known the
 * morning after, weeks before the reBAP.
 */
export function aepEstimateFile(day: string, seed = 11): string {
  const random = rng(seed * 31 + 5);
  const rows = ["Datum;Zeitzone;von;bis;Datenkategorie;Datentyp;Einheit;AEP-Schätzer;Status"];
  const prices = rebapPrices(day, seed);
  deliveryDay(day).quarterHours.forEach((q, i) => {
    const start = new Date(q.epochMilliseconds).toISOString();
    const end = new Date(q.epochMilliseconds + 900_000).toISOString();
    const d = `${start.slice(8, 10)}.${start.slice(5, 7)}.${start.slice(0, 4)}`;
    const estimate = Math.round((prices[i] + 12 * gauss(random)) * 100) / 100;
    rows.push(
      `${d};UTC;${start.slice(11, 16)};${end.slice(11, 16)};AEP-Schätzer;Betrieblich;EUR/MWh;${
        german(estimate)
      };0,00`,
    );
  });
  return rows.join("\n") + "\n";
}

/**
 * The intraday index price of `day` (ID AEP) in the data service's layout (`Datum von;(Uhrzeit)
 * von;Zeitzone;(Uhrzeit) bis;Zeitzone;ID AEP in €/MWh`, ISO dates, UTC rows): synthetic, 0.85 × the
 * synthetic reBAP + 6 EUR/MWh (as the shared sample is made); published the day after.
 */
export function idAepFile(day: string, seed = 11): string {
  const rows = ["Datum von;(Uhrzeit) von;Zeitzone;(Uhrzeit) bis;Zeitzone;ID AEP in €/MWh"];
  const prices = rebapPrices(day, seed);
  deliveryDay(day).quarterHours.forEach((q, i) => {
    const start = new Date(q.epochMilliseconds).toISOString();
    const end = new Date(q.epochMilliseconds + 900_000).toISOString();
    const price = Math.round((0.85 * prices[i] + 6) * 1000) / 1000;
    rows.push(
      `${start.slice(0, 10)};${start.slice(11, 16)};UTC;${end.slice(11, 16)};UTC;${
        price.toLocaleString("de-DE", { minimumFractionDigits: 3, maximumFractionDigits: 3 })
      }`,
    );
  });
  return rows.join("\n") + "\n";
}

/**
 * Writes the day's MSCONS interchange, ID AEP and the AEP estimate (what is known the morning after;
 * `rebap: true` writes the reBAP file instead) into `dir` (the actuals inbox).
 */
export async function writeMeteringFiles(
  dir: string,
  day: string,
  locations: readonly MeteredLocation[],
  opts: { rebap?: boolean } = {},
): Promise<{ mscons: string; prices: string; kwh: Map<string, number[]> }> {
  await Deno.mkdir(dir, { recursive: true });
  const { text, kwh } = meteringInterchange(day, locations);
  const mscons = `${dir}/MSCONS_${day}.edi`;
  const prices = opts.rebap ? `${dir}/reBAP_${day}.csv` : `${dir}/AEP-Schaetzer_${day}.csv`;
  // Written under a hidden name, then renamed: the inbox never reads a half-written file.
  await Deno.writeTextFile(`${dir}/.${day}.edi.part`, text);
  await Deno.rename(`${dir}/.${day}.edi.part`, mscons);
  await Deno.writeTextFile(
    `${dir}/.${day}.csv.part`,
    opts.rebap ? rebapFile(day) : aepEstimateFile(day),
  );
  await Deno.rename(`${dir}/.${day}.csv.part`, prices);
  await Deno.writeTextFile(`${dir}/.${day}.idaep.part`, idAepFile(day));
  await Deno.rename(`${dir}/.${day}.idaep.part`, `${dir}/ID-AEP_${day}.csv`);
  return { mscons, prices, kwh };
}
