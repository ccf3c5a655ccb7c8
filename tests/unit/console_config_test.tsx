/**
 * The config editor's logic (docs/architecture.md: "Runtime configuration", "Errors"): shown values, changed fields, the
 * partial-update body, and 422 items sorted to the field they concern.
 */
import assert from "node:assert/strict";
import {
  changesBody,
  displayValue,
  draftValue,
  errorsByField,
  isDirty,
} from "../../lib/console/config_form.ts";
import { fieldMeta } from "../../lib/console/field_meta.ts";
import type { ConfigFieldView } from "../../lib/console/types.ts";

const fields = fieldMeta();
const meta = Object.fromEntries(fields.map((f) => [f.name, f]));
const view = (value: unknown, secret = false): ConfigFieldView => ({
  value,
  source: "env",
  secret,
  env: "X",
  description: "",
});

Deno.test("displayValue: lists one per line, null empty, secrets never", () => {
  assert.equal(displayValue(meta.active_control_areas, view(["A", "B"])), "A\nB");
  assert.equal(displayValue(meta.sftp_host, view(null)), "");
  assert.equal(displayValue(meta.sftp_port, view(22)), "22");
  assert.equal(displayValue(meta.sftp_password, view("********", true)), "");
});

Deno.test("isDirty and draftValue: numbers, lists, secrets", () => {
  assert.equal(isDirty(meta.sftp_port, "22", view(22)), false);
  assert.equal(isDirty(meta.sftp_port, "2222", view(22)), true);
  assert.equal(isDirty(meta.sftp_password, "", view("********", true)), false);
  assert.equal(isDirty(meta.sftp_password, "x", view("********", true)), true);
  assert.equal(draftValue(meta.sftp_port, " 2222 "), 2222);
  assert.equal(draftValue(meta.sftp_port, "22a"), "22a", "sent as typed; the service says why");
  assert.deepEqual(draftValue(meta.active_control_areas, "A\n B, C;;\n"), ["A", "B", "C"]);
  assert.equal(draftValue(meta.sftp_password, " keep spaces "), " keep spaces ");
});

Deno.test("changesBody: only changed fields", () => {
  const v = { sftp_port: view(22), sftp_host: view("a"), sftp_password: view(null, true) };
  assert.deepEqual(
    changesBody(fields, { sftp_port: "22", sftp_host: "b", sftp_password: "" }, v),
    { sftp_host: "b" },
  );
});

Deno.test("errorsByField: 422 items at their field; list entries named; others general", () => {
  const { byField, general } = errorsByField([
    {
      loc: ["body", "home_control_area"],
      msg: "not a valid EIC: check character should be I",
      type: "value_error.eic",
      input: "10YDE-RWENET---J",
      ctx: {},
    },
    {
      loc: ["body", "active_control_areas", 1],
      msg: "not a valid EIC",
      type: "value_error.eic",
      input: "10YDE-EON------2",
      ctx: {},
    },
    { loc: ["body"], msg: "expected a JSON object", type: "type_error.object", input: [], ctx: {} },
    {
      loc: ["body", "sftp_hots"],
      msg: 'unknown field "sftp_hots"',
      type: "extra_forbidden",
      input: null,
      ctx: {},
    },
  ], fields);
  assert.deepEqual(byField, {
    home_control_area: ["not a valid EIC: check character should be I"],
    active_control_areas: ["entry 2 (“10YDE-EON------2”): not a valid EIC"],
  });
  assert.deepEqual(general, [
    "body: expected a JSON object",
    'body.sftp_hots: unknown field "sftp_hots"',
  ]);
});
