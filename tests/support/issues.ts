/**
 * The 422 items a caller would get (docs/architecture.md, "Errors"), read off a refused call in
 * a unit test, without HTTP.
 * @module
 */
import assert from "node:assert/strict";
import { type ErrorCode, type InputIssue, InvalidInput } from "../../lib/domain/errors.ts";

/**
 * Awaits `pending`, asserts it was refused with {@link InvalidInput} of `code`, and returns its
 * issues (the items of the 422 body).
 */
export async function issuesOf(pending: Promise<unknown>, code: ErrorCode): Promise<InputIssue[]> {
  const err = await pending.then(
    (value) => assert.fail(`expected ${code}, got ${JSON.stringify(value)?.slice(0, 200)}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof InvalidInput, `expected InvalidInput, got ${String(err)}`);
  assert.equal(err.code, code);
  assert.equal(err.outcome, "invalid");
  return err.issues;
}

/** `loc` and `type` of each item: what a client keys its messages on. */
export const where = (items: InputIssue[]) => items.map((i) => [i.loc, i.type]);

/**
 * The issues of a synchronous refusal of settlement input (fails when `fn` does not refuse with
 * {@link InvalidInput}): what the 422 body of the route would list.
 */
export function refusal(fn: () => unknown): InputIssue[] {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InvalidInput, String(err));
    return err.issues;
  }
  assert.fail("not refused");
}
