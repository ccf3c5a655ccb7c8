/**
 * The codes an MSCONS message is read by (docs/actuals.md, "MSCONS"), each from the document
 * that defines it:
 * - the **Prüfidentifikator** (`RFF+Z13`) says what a message is: EDI@Energy MSCONS
 *   Anwendungshandbuch (AHB) FV2504, message version 2.4c, valid from 2025-04-01 (one table per
 *   Prüfidentifikator; machine-readable in github.com/Hochfrequenz/
 *   machine-readable_anwendungshandbuecher, `FV2504/MSCONS/csv/<PID>.csv`);
 * - the **OBIS code** (`PIA+5+<OBIS>:SRW`) says what is measured and so the unit of a `QTY` that
 *   carries none (AHB 13025 and 13003 do not use data element 6411): EDI@Energy "Codeliste der
 *   OBIS-Kennzahlen und Medien"; `1-1:1.29.0` / `1-1:2.29.0` are active energy per measuring
 *   period, withdrawal / feed-in, in kWh;
 * - the **qualifier** of `QTY` (data element 6063) and the `STS` codes of a substitute value
 *   (method `Z32`, reason `Z40`, correction reason `Z34`): AHB 13025 and 13003;
 * - an explicit unit in `QTY` (older message versions, e.g. 2.4b): UN/ECE Recommendation 20.
 * @module
 */

/** What the service reads a message as, by its Prüfidentifikator. */
export type MessageKind =
  /** 13025: the load profile of a market location (`LOC+172+<MaLo-ID>`). */
  | "market_location"
  /** 13003: a balancing-group sum of a MaBiS metering point (`LOC+172+<Zählpunktbezeichnung>`). */
  | "metering_point_sum"
  /** Any other electricity PID, or none: read by its `LOC` qualifier as older versions were. */
  | "by_location"
  /** A gas message: refused. */
  | "gas";

/** The Prüfidentifikatoren of MSCONS in AHB FV2504 with their names, and how each is read. */
export const PRUEFIDENTIFIKATOREN: Readonly<Record<string, { name: string; kind: MessageKind }>> =
  Object.freeze({
    "13002": { name: "Messwert Zählerstand (Gas)", kind: "gas" },
    "13003": { name: "Summenzeitreihe", kind: "metering_point_sum" },
    "13005": { name: "EEG-Überführungszeitreihe", kind: "by_location" },
    "13006": { name: "Messwert Storno", kind: "by_location" },
    "13007": { name: "Gasbeschaffenheitsdaten", kind: "gas" },
    "13008": { name: "Messwert Lastgang (Gas)", kind: "gas" },
    "13009": { name: "Messwert Energiemenge (Gas)", kind: "gas" },
    "13010": { name: "Profil", kind: "by_location" },
    "13011": { name: "Profilschar", kind: "by_location" },
    "13012": { name: "TEP Vergangenheitswerte Referenz-Messung", kind: "by_location" },
    "13013": { name: "Marktlokationsscharfe Allokationsliste Gas (MMMA)", kind: "gas" },
    "13014": { name: "Marktlokationsscharfe bilanzierte Menge (MMMA)", kind: "gas" },
    "13015": { name: "Bewegungsdaten im Kalenderjahr vor Lieferbeginn", kind: "by_location" },
    "13016": { name: "Energiemenge und Leistungsmaximum", kind: "by_location" },
    "13017": { name: "Messwert Zählerstand (Strom)", kind: "by_location" },
    "13018": { name: "Lastgang Messlokation, Netzkoppelpunkt", kind: "by_location" },
    "13019": { name: "Messwert Energiemenge (Strom)", kind: "by_location" },
    "13020": { name: "Redispatch Ausfallarbeitsüberführungszeitreihe", kind: "by_location" },
    "13021": { name: "Redispatch Übermittlung von meteorologischen Daten", kind: "by_location" },
    "13022": { name: "Redispatch Einzelzeitreihe Ausfallarbeit", kind: "by_location" },
    "13023": { name: "Redispatch Ausfallarbeitssummenzeitreihe", kind: "by_location" },
    "13025": { name: "Lastgang Marktlokation, Tranche", kind: "market_location" },
    "13026": {
      name: "Redispatch EEG-Überführungszeitreihe aufgrund Ausfallarbeit",
      kind: "by_location",
    },
    "13027": { name: "Werte nach Typ 2", kind: "by_location" },
    "13028": { name: "Grundlage POG-Ermittlung", kind: "by_location" },
  });

/** How the service reads a Prüfidentifikator (`by_location` for one it does not list). */
export function messageKindOf(pid: string | undefined): MessageKind {
  return (pid && Object.hasOwn(PRUEFIDENTIFIKATOREN, pid))
    ? PRUEFIDENTIFIKATOREN[pid].kind
    : "by_location";
}

/** An OBIS code of active energy per measuring period: its unit factor to kWh and direction. */
export interface ObisEnergy {
  /** Factor of the quantity to kWh. */
  kwh: number;
  /** `withdrawal` (Bezug, +) or `feed_in` (Lieferung, −) seen from the grid user. */
  direction: "withdrawal" | "feed_in";
  text: string;
}

/** OBIS codes whose quantity is active energy per measuring period (EDI@Energy OBIS code list). */
export const OBIS_ENERGY: Readonly<Record<string, ObisEnergy>> = Object.freeze({
  "1-1:1.29.0": {
    kwh: 1,
    direction: "withdrawal",
    text: "active energy withdrawn per measuring period, kWh",
  },
  "1-1:2.29.0": {
    kwh: 1,
    direction: "feed_in",
    text: "active energy fed in per measuring period, kWh",
  },
});

/** OBIS codes met in MSCONS that are no active energy per interval, named in the refusal. */
const OBIS_NOT_ENERGY: ReadonlyArray<[RegExp, string]> = [
  [/^1-1:[34]\.29\.\d+$/, "reactive energy per measuring period (kvarh), not active energy"],
  [/^1-\d+:[12]\.8\.\d+$/, "a meter reading (register), not an energy per measuring period"],
  [/^1-\d+:[12]\.(4|5|6)\.\d+$/, "a power, not an energy"],
  [/^7-/, "a gas quantity"],
];

/** Why an OBIS code gives no energy unit (for a refusal), or `undefined` when it does. */
export function obisProblem(obis: string | undefined): string | undefined {
  if (obis && Object.hasOwn(OBIS_ENERGY, obis)) return undefined;
  const known = Object.keys(OBIS_ENERGY).join(" or ");
  if (!obis) {
    return `the quantity has no unit and its line no OBIS code (PIA+5+<OBIS>:SRW); we take a unit KWH or MWH, or the OBIS codes ${known}`;
  }
  const named = OBIS_NOT_ENERGY.find(([re]) => re.test(obis));
  return `the quantity has no unit and OBIS code ${obis} is ${
    named ? named[1] : "not one we know"
  }; we take ${known} (active energy per measuring period in kWh, EDI@Energy OBIS code list)`;
}

/** Energy units of `QTY` (UN/ECE Recommendation 20 codes) and their factor to kWh. */
export const UNITS: Readonly<Record<string, number>> = Object.freeze({ KWH: 1, MWH: 1000 });

/** Units of Recommendation 20 met in MSCONS that are not an energy, named in the refusal. */
export const NOT_ENERGY: Readonly<Record<string, string>> = Object.freeze({
  D54: "watt per square metre",
  KWT: "kilowatt, a power",
  MAW: "megawatt, a power",
  K3: "kilovolt-ampere reactive hour, a reactive energy",
  MTS: "metre per second",
});

/**
 * The kind of a quarter-hour value, stored per value (`lib/settlement/actuals_store.ts`):
 * 0 true value (`QTY+220`, or `79` energy summed), 1 substitute value (`67`), 2 provisional value
 * (`Z18`), 3 missing value (`Z30`, no number).
 */
export const QUALITY = Object.freeze({ TRUE: 0, SUBSTITUTE: 1, PROVISIONAL: 2, MISSING: 3 });

/** `QTY` qualifiers (data element 6063) the service reads, and the kind of value each is. */
export const QTY_QUALIFIERS: Readonly<Record<string, number>> = Object.freeze({
  "220": QUALITY.TRUE,
  "79": QUALITY.TRUE,
  "67": QUALITY.SUBSTITUTE,
  "Z18": QUALITY.PROVISIONAL,
  "Z30": QUALITY.MISSING,
});

/** `STS+Z32` substitute method codes (AHB 13025 "Ersatzwertbildungsverfahren"), in words. */
export const SUBSTITUTE_METHODS: Readonly<Record<string, string>> = Object.freeze({
  Z88: "comparison measurement (calibrated)",
  Z89: "comparison measurement (not calibrated)",
  Z92: "interpolation",
  ZJ2: "statistical method",
  ZS0: "method as given for the metering location",
});

/**
 * `STS+Z40` reasons for a substitute value and `STS+Z34` correction reasons (AHB 13025, the same
 * code list), in words.
 */
export const SUBSTITUTE_REASONS: Readonly<Record<string, string>> = Object.freeze({
  Z74: "no access",
  Z75: "communication failure",
  Z76: "grid outage",
  Z77: "voltage failure",
  Z78: "device change",
  Z79: "calibration",
  Z80: "device outside its operating conditions",
  Z81: "metering device faulty",
  Z82: "measurement uncertainty",
  ZA0: "clock set / synchronisation",
  ZA1: "implausible value",
  ZA3: "wrong transformer factor",
  ZA4: "wrong reading",
  ZA5: "change of calculation",
  ZA6: "conversion of the metering location",
  ZA7: "data processing error",
  ZB0: "metering device fault",
  ZB9: "change of tariff switching times",
  ZC2: "tariff switching device faulty",
  ZC4: "pulse value not sufficient",
  ZS9: "reason as given for the metering location",
});

/** A code in words: `interpolation (Z92)`; an unknown code as itself. */
export function codeText(table: Readonly<Record<string, string>>, code: string | null): string {
  if (!code) return "not given";
  return Object.hasOwn(table, code) ? `${table[code]}` : `code ${code}`;
}
