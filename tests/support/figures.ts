/**
 * The console's figures read back in tests (docs/console.md, "Numbers"), written here
 * apart from the console's own formatting code: visible text with no-break spaces as spaces, a
 * number with fixed decimals in a locale, and a shown figure ("19.3 kW", "1.560 MWh",
 * "1.234,56 EUR", "0.310 ct") as its value in the base unit (MW, MWh, EUR) with the size of its
 * last digit, so a test can check it against the API within what it shows.
 * @module
 */
import assert from "node:assert/strict";

/** Visible text of rendered HTML: tags and titles out, entities and no-break spaces as text. */
export function htmlText(html: string): string {
  return html.replace(/<title>[^]*?<\/title>/g, " ").replace(/<[^>]+>/g, " ")
    .replace(/&nbsp;|\u00a0/g, " ").replace(/&amp;/g, "&").replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">").replace(/&#39;|&#x27;/g, "'").replace(/&quot;/g, '"')
    .replace(/\s+/g, " ").trim();
}

/** Visible text with no-break spaces as spaces, runs of white space as one. */
export const plain = (s: string) => s.replace(/\u00a0/g, " ").replace(/\s+/g, " ").trim();

/** `v` with `digits` decimals in `locale` (`Intl.NumberFormat`), as plain text. */
export const num = (v: number, digits: number, locale: string) =>
  plain(
    new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits })
      .format(v),
  );

/** A shown figure read back: its value in the base unit (MW, MWh, EUR) and its last digit's size. */
export function figure(text: string, locale: string): { value: number; step: number } {
  const m = /^(-?[\d.,]+) (kW|MW|kWh|MWh|EUR|ct)$/.exec(plain(text));
  assert.ok(m, `not a figure: ${text}`);
  const [group, dec] = locale.startsWith("de") ? [".", ","] : [",", "."];
  const digits = m[1].split(group).join("").replace(dec, ".");
  const decimals = digits.includes(".") ? digits.split(".")[1].length : 0;
  const scale = m[2] === "kW" || m[2] === "kWh" ? 1e-3 : m[2] === "ct" ? 1e-2 : 1;
  return { value: Number(digits) * scale, step: 10 ** -decimals * scale };
}

/** Asserts that the shown figure `text` is `v` (base unit) within half its last digit. */
export function assertShows(text: string, v: number, locale: string): void {
  const f = figure(text, locale);
  assert.ok(Math.abs(f.value - v) <= f.step / 2 + 1e-9, `${text} shown for ${v}`);
}

/** Shown figures (of one unit) summed in integers of their finest last digit. */
export function shownSum(texts: string[], locale: string): number {
  const fs = texts.map((t) => figure(t, locale));
  const step = Math.min(...fs.map((f) => f.step));
  return fs.reduce((s, f) => s + Math.round(f.value / step), 0) * step;
}

/** The figures of a totals sentence ("…: 1.56 MWh short, …"): short, long, cost, day-ahead cost. */
export function totalsOf(sentence: string): string[] {
  const m =
    /: (\S+ [a-zA-Z]+) short, (\S+ [a-zA-Z]+) long, (\S+ [a-zA-Z]+)(?: \(received\))?; the day-ahead schedule alone: (\S+ [a-zA-Z]+)/
      .exec(plain(sentence));
  assert.ok(m, sentence);
  return m.slice(1, 5);
}

/**
 * Energy as the console must write it on its own (docs/console.md, "Numbers"): three significant
 * digits, in kWh below 1 MWh, `0 MWh` for nothing.
 */
export function energyText(mwh: number, locale: string): string {
  if (mwh === 0) return `${num(0, 0, locale)} MWh`;
  const [v, unit] = Math.abs(mwh) < 1 ? [mwh * 1000, "kWh"] : [mwh, "MWh"];
  const d = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(v))));
  return `${num(v, d, locale)} ${unit}`;
}
