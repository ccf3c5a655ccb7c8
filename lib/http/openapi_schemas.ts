/**
 * The zod schemas of the routes as JSON Schema (draft 2020-12) inside one OpenAPI 3.1.0 document
 * (docs/api.md, "The document"): each response and request body a named schema under
 * `components.schemas` (its zod `id`, or a name from its operation), and every sub-schema zod puts
 * under `$defs` (an `id`, a recursive shape) moved there too, its `$ref`s rewritten — a `#/$defs/…`
 * left inside an operation would point at the document's root.
 * @module
 */
import { z } from "zod";

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

const COMPONENTS = "#/components/schemas/";

/** Collects the named schemas of one document. */
export class SchemaComponents {
  /** `components.schemas` of the document. */
  readonly schemas: Record<string, JsonSchema> = {};
  /** zod's own JSON of each component, to tell a second use of a name from a clash. */
  readonly #source = new Map<string, string>();
  readonly #memo = new Map<z.ZodType, Map<string, JsonSchema>>();
  #anonymous = 0;

  /**
   * The schema of `schema` for the document: a `$ref` to `components.schemas` when it has a zod
   * `id` or `name` is given, else inline (its `$defs` moved to the components either way).
   * @param io `output` for answers, `input` for requests (defaults and coercions differ)
   * @throws Error when two different schemas claim one component name
   */
  use(schema: z.ZodType, io: "input" | "output", name?: string): JsonSchema {
    const memoKey = `${io}|${name ?? ""}`;
    const seen = this.#memo.get(schema)?.get(memoKey);
    if (seen) return seen;
    const raw = z.toJSONSchema(schema, {
      target: "draft-2020-12",
      io,
      unrepresentable: "any",
    }) as JsonSchema;
    delete raw.$schema;
    const defs = (raw.$defs ?? {}) as Record<string, JsonSchema>;
    delete raw.$defs;
    const names = new Map<string, string>();
    for (const [k, def] of Object.entries(defs)) {
      const base = k.startsWith("__") ? `${name ?? "Schema"}_${++this.#anonymous}` : k;
      names.set(k, this.#free(base, JSON.stringify(def), io));
    }
    const rewrite = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(rewrite);
      if (v === null || typeof v !== "object") return v;
      const out: JsonSchema = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === "$ref" && typeof x === "string") out[k] = refOf(x, names, name);
        else out[k] = rewrite(x);
      }
      return out;
    };
    for (const [k, def] of Object.entries(defs)) {
      const target = names.get(k)!;
      this.#source.set(target, JSON.stringify(def));
      this.schemas[target] = rewrite(def) as JsonSchema;
    }
    let out = rewrite(raw) as JsonSchema;
    const onlyRef = Object.keys(out).length === 1 && typeof out.$ref === "string";
    if (name && !onlyRef) {
      const target = this.#free(name, JSON.stringify(raw), io);
      this.#source.set(target, JSON.stringify(raw));
      this.schemas[target] = out;
      out = { $ref: COMPONENTS + target };
    }
    let byKey = this.#memo.get(schema);
    if (!byKey) this.#memo.set(schema, byKey = new Map());
    byKey.set(memoKey, out);
    return out;
  }

  /** `base`, or `base` + `Input` for a request's variant, if free or holding the same JSON. */
  #free(base: string, json: string, io: "input" | "output"): string {
    const candidates = io === "input" ? [base, `${base}Input`] : [base];
    for (const c of candidates) {
      const had = this.#source.get(c);
      if (had === undefined || had === json) return c;
    }
    throw new Error(`two different schemas are named ${base} in the OpenAPI document`);
  }
}

/** A `$ref` of zod's output as a reference into `components.schemas`. */
function refOf(ref: string, names: Map<string, string>, self: string | undefined): string {
  if (ref === "#" && self) return COMPONENTS + self;
  const m = /^#\/\$defs\/(.+)$/.exec(ref);
  const target = m && names.get(m[1]);
  if (!target) throw new Error(`unresolvable $ref ${ref} in a route's schema`);
  return COMPONENTS + target;
}
