/**
 * Text forms of archived records (docs/retention.md, "Archive of a day"): JSON lines that keep
 * what KV stores beyond JSON (typed arrays as arrays, `bigint` and `Deno.KvU64` as decimal
 * strings), and RFC 4180 CSV with `\r\n` line ends like the published open position.
 * @module
 */
import { stringify } from "csv-stringify/sync";

/** JSON replacer for KV values: typed arrays → arrays, `bigint`/`Deno.KvU64` → strings. */
export function kvJsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Deno.KvU64) return value.value.toString();
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    return Array.from(value as unknown as ArrayLike<number>);
  }
  if (value instanceof Uint8Array) return Array.from(value);
  return value;
}

/** One JSON line (with its `\n`) of `value`, KV values made JSON by {@link kvJsonReplacer}. */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value, kvJsonReplacer) + "\n";
}

/** CSV text of `rows` (first row the header), `\r\n` line ends. */
export function toCsv(rows: unknown[][]): string {
  return stringify(rows, { record_delimiter: "\r\n" });
}
