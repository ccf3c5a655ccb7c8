/**
 * Reading the client from proxy headers (docs/access-control.md, "Client address"; RFC 7239):
 * the grammar of `Forwarded`, `X-Forwarded-For`, the right-most untrusted hop, and the
 * `TRUSTED_PROXIES` list that refuses start-up on a bad entry.
 */
import assert from "node:assert/strict";
import { resolveClient } from "../../lib/http/client_address.ts";
import { forwardedHops, nodeAddress, xForwardedForHops } from "../../lib/http/forwarded.ts";
import { addressGroup, parseAddressRanges } from "../../lib/net/addresses.ts";
import { loadSettings, SettingsError } from "../../lib/settings.ts";

Deno.test("Forwarded: for= of each element, quoted IPv6 with port, other parameters ignored", () => {
  assert.deepEqual(forwardedHops("for=192.0.2.60;proto=http;by=203.0.113.43"), ["192.0.2.60"]);
  assert.deepEqual(
    forwardedHops('for=192.0.2.43, for="[2001:db8:cafe::17]:4711" ,For="198.51.100.17:80"'),
    ["192.0.2.43", "2001:db8:cafe::17", "198.51.100.17"],
  );
  // RFC 7239 §4: parameter names are case-insensitive; `;` and empty elements tolerated.
  assert.deepEqual(forwardedHops(";FOR=192.0.2.1;, ,proto=https"), ["192.0.2.1", undefined]);
  // A quoted string may hold `,` and `;` and escapes.
  assert.deepEqual(forwardedHops('by="a,b;c\\"d";for=192.0.2.9'), ["192.0.2.9"]);
  // Canonical spelling: zeros compressed, IPv4-mapped as IPv4.
  assert.deepEqual(forwardedHops('for="[2001:0db8:0:0::0001]", for="[::ffff:192.0.2.1]"'), [
    "2001:db8::1",
    "192.0.2.1",
  ]);
});

Deno.test("Forwarded: unknown and obfuscated hops name no address; malformed headers are undefined", () => {
  assert.deepEqual(forwardedHops('for=unknown, for=_hidden, for="_SEVKISEK:_4711"'), [
    undefined,
    undefined,
    undefined,
  ]);
  assert.deepEqual(forwardedHops('for="_gazonk"'), [undefined]);
  assert.deepEqual(forwardedHops('for="[2001:db8::1]:http"'), [undefined]);
  for (
    const bad of [
      'for="[2001:db8::1', // quote not closed
      "for=2001:db8::1", // IPv6 must be quoted (`:` is no token character)
      "for=192.0.2.1;for=192.0.2.2", // a parameter twice in one element
      "for", // no `=`
      "for=", // empty value
      "for=192.0.2.1 x", // junk after a value
      "fo r=192.0.2.1",
      "",
      " , ",
    ]
  ) {
    assert.equal(forwardedHops(bad), undefined, bad);
  }
});

Deno.test("X-Forwarded-For: addresses, bracketed or with a port; anything else names no address", () => {
  assert.deepEqual(xForwardedForHops("203.0.113.7, 2001:db8::1 ,[2001:db8::2]:443,192.0.2.1:80"), [
    "203.0.113.7",
    "2001:db8::1",
    "2001:db8::2",
    "192.0.2.1",
  ]);
  assert.deepEqual(xForwardedForHops("unknown,,010.0.0.1,1.2.3,fe80::1%eth0"), [
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
  assert.equal(xForwardedForHops("  "), undefined);
  assert.equal(nodeAddress("[192.0.2.1]"), undefined, "IPv4 is never bracketed");
  assert.equal(nodeAddress("[2001:db8::1]x"), undefined);
});

Deno.test("resolveClient: the right-most hop that is not trusted; untrusted peers are the client", () => {
  const { ranges } = parseAddressRanges("127.0.0.1, 10.0.0.0/8, 2001:db8:ffff::/48");
  const h = (init: Record<string, string>) => new Headers(init);
  // An untrusted peer: headers never read.
  assert.equal(
    resolveClient("192.0.2.9", h({ "x-forwarded-for": "198.51.100.1" }), ranges),
    "192.0.2.9",
  );
  // A trusted peer without headers is the client.
  assert.equal(resolveClient("127.0.0.1", h({}), ranges), "127.0.0.1");
  // The client's own (spoofed) entries on the left are passed over; trusted hops skipped.
  assert.equal(
    resolveClient("127.0.0.1", h({ "x-forwarded-for": "6.6.6.6, 198.51.100.1, 10.2.3.4" }), ranges),
    "198.51.100.1",
  );
  assert.equal(
    resolveClient(
      "::ffff:127.0.0.1",
      h({ forwarded: 'for="[2001:db8::5]", for=10.0.0.1' }),
      ranges,
    ),
    "2001:db8::5",
    "an IPv4-mapped peer is the IPv4 address",
  );
  // Every hop trusted: the left-most.
  assert.equal(
    resolveClient("127.0.0.1", h({ "x-forwarded-for": "10.0.0.2, 10.0.0.1" }), ranges),
    "10.0.0.2",
  );
  // A hop naming no address stops the walk at the trusted hop that reported it.
  assert.equal(
    resolveClient(
      "127.0.0.1",
      h({ forwarded: "for=198.51.100.1, for=unknown, for=10.0.0.3" }),
      ranges,
    ),
    "10.0.0.3",
  );
  // Malformed, or two headers naming different clients: the peer.
  assert.equal(
    resolveClient("127.0.0.1", h({ forwarded: "for=198.51.100.1;for=x" }), ranges),
    "127.0.0.1",
  );
  assert.equal(
    resolveClient(
      "127.0.0.1",
      h({ forwarded: "for=198.51.100.1", "x-forwarded-for": "198.51.100.2" }),
      ranges,
    ),
    "127.0.0.1",
  );
  assert.equal(
    resolveClient(
      "127.0.0.1",
      h({ forwarded: "for=198.51.100.1", "x-forwarded-for": "198.51.100.1" }),
      ranges,
    ),
    "198.51.100.1",
  );
});

Deno.test("address ranges and the /64 of an IPv6 host", () => {
  const { ranges, entries, problems } = parseAddressRanges(
    " 10.0.0.0/8,192.0.2.7 , 2001:DB8::/32, ::1, ::ffff:172.16.0.0/108",
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(entries, [
    "10.0.0.0/8",
    "192.0.2.7/32",
    "2001:db8::/32",
    "::1/128",
    "172.16.0.0/12",
  ]);
  for (
    const a of ["10.255.0.1", "192.0.2.7", "2001:db8:9::1", "::1", "172.31.0.1", "::ffff:10.0.0.1"]
  ) {
    assert.ok(ranges.contains(a), a);
  }
  for (const a of ["11.0.0.1", "192.0.2.8", "2001:db9::1", "::2", "unknown", ""]) {
    assert.ok(!ranges.contains(a), a);
  }
  assert.equal(addressGroup("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  assert.equal(addressGroup("2001:db8::1:2:3:4:5"), "2001:db8:0:1::/64");
  assert.equal(
    addressGroup("::ffff:192.0.2.7"),
    "192.0.2.7",
    "an IPv4-mapped peer is its IPv4 host",
  );
  assert.equal(addressGroup("192.0.2.7"), "192.0.2.7");
});

Deno.test("TRUSTED_PROXIES: default none; a bad entry refuses start with a sentence naming it", () => {
  assert.deepEqual(loadSettings({ PROCESS_API_KEY: "x".repeat(16) }).trustedProxies, []);
  assert.deepEqual(
    loadSettings({ PROCESS_API_KEY: "x".repeat(16), TRUSTED_PROXIES: "10.0.0.0/8, ::1" })
      .trustedProxies,
    ["10.0.0.0/8", "::1/128"],
  );
  for (
    const bad of [
      "10.0.0.0/33",
      "10.0.0",
      "2001:db8::/129",
      "proxy.example",
      "10.0.0.0/8/8",
      "fe80::1%eth0",
    ]
  ) {
    const quoted = bad.replace(/[./%]/g, "\\$&");
    assert.throws(
      () => loadSettings({ PROCESS_API_KEY: "x".repeat(16), TRUSTED_PROXIES: `127.0.0.1,${bad}` }),
      (e) =>
        e instanceof SettingsError &&
        new RegExp(
          `TRUSTED_PROXIES: entry 2 \\("${quoted}"\\) is not an IPv4 or IPv6 address or CIDR range`,
        ).test(e.message),
      bad,
    );
  }
});
