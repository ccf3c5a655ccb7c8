/**
 * The refusal log's limits (docs/access-control.md, "Audit events"): per address (IPv6 by its
 * /64), per caller, and for all sources together; the summary keeps the count.
 */
import assert from "node:assert/strict";
import { FakeClock } from "../../lib/clock.ts";
import {
  addressGroup,
  ALL_DENIALS_PER_MINUTE,
  DENIALS_PER_MINUTE,
  DenialThrottle,
} from "../../lib/http/denial_throttle.ts";

Deno.test("denial throttle: an IPv6 host rotating within its /64 counts as one address", () => {
  assert.equal(addressGroup("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  assert.equal(addressGroup("2001:db8:1:2:bbbb:cccc:dddd:eeee"), "2001:db8:1:2::/64");
  assert.equal(addressGroup("192.0.2.7"), "192.0.2.7");
  const t = new DenialThrottle(new FakeClock(0));
  let stored = 0;
  for (let i = 0; i < 50; i++) {
    if (t.take({ address: `2001:db8:1:2:${i.toString(16)}::1` }).store) stored++;
  }
  assert.equal(stored, DENIALS_PER_MINUTE);
});

Deno.test("denial throttle: many addresses at once are capped together, and the summary says so", () => {
  const clock = new FakeClock(0);
  const t = new DenialThrottle(clock);
  let stored = 0;
  for (let i = 0; i < 1000; i++) {
    if (t.take({ address: `198.51.${Math.floor(i / 250)}.${i % 250}` }).store) stored++;
  }
  assert.equal(stored, ALL_DENIALS_PER_MINUTE);
  clock.advance(61_000);
  const summaries = t.flush();
  const all = summaries.find((s) => /from many addresses/.test(s.message));
  assert.ok(all, JSON.stringify(summaries));
  assert.equal(all.suppressed, 1000 - ALL_DENIALS_PER_MINUTE);
});
