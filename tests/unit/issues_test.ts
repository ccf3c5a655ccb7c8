/**
 * zod issues as 422 items (docs/architecture.md, "Errors"; lib/domain/issues.ts): where, which
 * stable type, which facts in `ctx`, and which `input` is echoed — never an unknown field's or a
 * secret field's value, never a whole large value.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { clipInput, zodIssuesToItems } from "../../lib/domain/issues.ts";

const Schema = z.strictObject({
  name: z.string().min(3),
  port: z.number().int().max(65535),
  mode: z.enum(["sftp", "outbox"]),
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  sftp_password: z.string().min(12),
  nested: z.strictObject({ list: z.array(z.number()).max(2) }).optional(),
  plain: z.string().refine((v) => v === "x", "must be x").optional(),
  eic: z.string().superRefine((v, ctx) => {
    if (v !== "ok") {
      ctx.addIssue({
        code: "custom",
        message: "not a valid EIC",
        params: { type: "value_error.eic", ctx: { length: v.length } },
      });
    }
  }).optional(),
});

/** The items for `input` validated at `where`, `sftp_password` declared secret. */
function itemsFor(input: Record<string, unknown>, where = "body") {
  const r = Schema.safeParse(input);
  assert.equal(r.success, false);
  return zodIssuesToItems(where, r.error!.issues, input, new Set(["sftp_password"]));
}

const valid = {
  name: "abc",
  port: 22,
  mode: "sftp",
  day: "2026-11-23",
  sftp_password: "long-enough-0001",
};

/** The item at `loc` (joined with "."); fails when there is none. */
function at(items: ReturnType<typeof itemsFor>, loc: string) {
  const hit = items.find((i) => i.loc.join(".") === loc);
  assert.ok(hit, `no item at ${loc}: ${JSON.stringify(items.map((i) => i.loc))}`);
  return hit;
}

Deno.test("422 items: an unknown field is named in loc and msg, its value never echoed", () => {
  const items = itemsFor({ ...valid, api_key: "pasted-secret-0001", nested: { list: [], x: 1 } });
  assert.deepEqual(at(items, "body.api_key"), {
    loc: ["body", "api_key"],
    msg: 'unknown field "api_key"',
    type: "extra_forbidden",
    input: null,
    ctx: {},
  });
  assert.deepEqual(at(items, "body.nested.x").input, null, "nested unknown field: path and key");
  assert.equal(items.length, 2);
});

Deno.test("422 items: a secret field's value is never echoed, whatever the error; others are", () => {
  const items = itemsFor({ ...valid, sftp_password: "short-pw", name: "ab" });
  assert.deepEqual(at(items, "body.sftp_password"), {
    loc: ["body", "sftp_password"],
    msg: "Too small: expected string to have >=12 characters",
    type: "value_error.too_small",
    input: null,
    ctx: { minimum: 12 },
  });
  assert.equal(at(items, "body.name").input, "ab");
  // Without the field declared secret the value would be echoed: the set is what protects it.
  const open = zodIssuesToItems(
    "body",
    Schema.safeParse({ ...valid, sftp_password: "short-pw" }).error!.issues,
    { ...valid, sftp_password: "short-pw" },
  );
  assert.equal(open[0].input, "short-pw");
});

Deno.test("422 items: stable type codes per kind of problem", () => {
  const items = itemsFor({
    name: 5,
    port: 70_000,
    mode: "ftp",
    day: "23.11.2026",
    sftp_password: "long-enough-0001",
    plain: "y",
    eic: "10Y",
  });
  assert.deepEqual(items.map((i) => [i.loc.join("."), i.type]), [
    ["body.name", "type_error"],
    ["body.port", "value_error.too_big"],
    ["body.mode", "value_error.enum"],
    ["body.day", "value_error.format"],
    ["body.plain", "value_error"],
    ["body.eic", "value_error.eic"], // the schema's own type wins
  ]);
});

Deno.test("422 items: ctx carries the facts a client needs to explain the problem", () => {
  const items = itemsFor({
    name: 5,
    port: 70_000,
    mode: "ftp",
    day: "x",
    sftp_password: "long-enough-0001",
    nested: { list: [1, 2, 3] },
    eic: "10Y",
  });
  assert.deepEqual(at(items, "body.name").ctx, { expected: "string" });
  assert.deepEqual(at(items, "body.port").ctx, { maximum: 65535 });
  assert.deepEqual(at(items, "body.mode").ctx, { values: ["sftp", "outbox"] });
  assert.deepEqual(at(items, "body.day").ctx, {
    format: "regex",
    pattern: String(/^\d{4}-\d{2}-\d{2}$/),
  });
  assert.deepEqual(at(items, "body.nested.list").ctx, { maximum: 2 });
  assert.deepEqual(at(items, "body.eic").ctx, { length: 3 }, "the schema's own ctx");
  assert.deepEqual(itemsFor({ ...valid, name: "" })[0].ctx, { minimum: 3 });
});

Deno.test("422 items: loc starts with where the value came from; array indexes stay numbers", () => {
  const items = itemsFor({ ...valid, port: "22", nested: { list: [1, "2"] } }, "query");
  assert.deepEqual(items.map((i) => i.loc), [["query", "port"], ["query", "nested", "list", 1]]);
  assert.deepEqual(items.map((i) => i.input), ["22", "2"]);
});

Deno.test("clipInput: small values as sent; long text and large values cut to 1,000 characters with …", () => {
  assert.equal(clipInput(null), null);
  assert.equal(clipInput(42), 42);
  const small = { a: [1, 2] };
  assert.equal(clipInput(small), small);
  assert.equal(clipInput("a".repeat(1000)), "a".repeat(1000));
  assert.equal(clipInput("a".repeat(1001)), "a".repeat(1000) + "…");
  const big = { text: "b".repeat(2000) };
  assert.equal(clipInput(big), JSON.stringify(big).slice(0, 1000) + "…");
  // In an item: a large offending value is echoed clipped.
  const items = itemsFor({ ...valid, nested: { list: Array(600).fill(12345) } });
  assert.equal(items[0].input, JSON.stringify(Array(600).fill(12345)).slice(0, 1000) + "…");
});

Deno.test("422 items: a missing field and a missing body carry input null, never no input", () => {
  const { name: _, ...withoutName } = valid;
  const items = itemsFor(withoutName);
  assert.deepEqual(items.map((i) => [i.loc, i.input]), [[["body", "name"], null]]);
  assert.ok("input" in JSON.parse(JSON.stringify(items[0])));
  const whole = Schema.safeParse(undefined);
  const [item] = zodIssuesToItems("body", whole.error!.issues, undefined);
  assert.deepEqual([item.loc, item.input], [["body"], null]);
  assert.equal(clipInput(undefined), null);
});
