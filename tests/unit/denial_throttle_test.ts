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

Deno.test("denial throttle: a recognised caller counts against itself only, not its address", () => {
  const t = new DenialThrottle(new FakeClock(0));
  for (let i = 0; i < 500; i++) t.take({ address: "127.0.0.1", path: "/v1/config" });
  // The address (and all addresses together) are full; the caller's own budget is not.
  for (let i = 0; i < DENIALS_PER_MINUTE; i++) {
    assert.equal(t.take({ address: "127.0.0.1", caller: "acme" }).store, true, `refusal ${i}`);
  }
  assert.equal(t.take({ address: "127.0.0.1", caller: "acme" }).store, false, "its own cap");
  assert.equal(t.take({ address: "192.0.2.1", caller: "acme" }).store, false, "from anywhere");
  assert.equal(t.take({ address: "127.0.0.1", caller: "ops" }).store, true, "another caller");
});

Deno.test("denial throttle: the summary names the paths refused most", () => {
  const t = new DenialThrottle(new FakeClock(0));
  const refuse = (path: string, n: number) => {
    for (let i = 0; i < n; i++) t.take({ address: "127.0.0.1", path });
  };
  refuse("/v1/first", DENIALS_PER_MINUTE); // stored, not counted in the summary
  // Many rare paths first, then the flood: the flood's path still leads.
  for (let i = 0; i < 40; i++) refuse(`/v1/rare/${i}`, 1);
  refuse("/v1/config", 200);
  refuse("/v1/x", 90);
  const [s] = t.flush(true);
  assert.equal(s.suppressed, 330);
  assert.deepEqual(s.paths.map((p) => p.path), ["/v1/config", "/v1/x", s.paths[2].path]);
  assert.ok(s.paths[0].refusals >= 199 && s.paths[0].refusals <= 200, String(s.paths[0].refusals));
  assert.match(
    s.message,
    /^… and 330 more refusals from 127\.0\.0\.1 in the last minute, most to \/v1\/config \((at least )?\d+\), \/v1\/x \((at least )?\d+\), /,
  );
});

Deno.test("denial throttle: exact counts while few paths are refused", () => {
  const t = new DenialThrottle(new FakeClock(0));
  for (let i = 0; i < 300; i++) {
    t.take({ address: "127.0.0.1", path: i % 3 ? "/v1/config" : "/v1/x" });
  }
  const [s] = t.flush(true);
  assert.deepEqual(s.paths, [
    { path: "/v1/config", refusals: 194 },
    { path: "/v1/x", refusals: 96 },
  ]);
  assert.equal(
    s.message,
    "… and 290 more refusals from 127.0.0.1 in the last minute, most to /v1/config (194), /v1/x (96); not stored one by one",
  );
});
