/**
 * The post-delivery part of the console's after-delivery view without a browser (docs/console.md,
 * "After delivery"; components/PostDeliveryCorrection.tsx), rendered with preact-render-to-string
 * from shapes checked against the wire schema: the window in words while open, closed and before
 * the day ended; the confirming question with its numbers (and without a price); no button when
 * closed or when nothing would change; the corrections sent; the service's refusal in words.
 */
import assert from "node:assert/strict";
import { renderToString } from "preact-render-to-string";
import {
  PostDeliveryCorrection,
  proposalQuestion,
  windowText,
} from "../../components/PostDeliveryCorrection.tsx";
import {
  AfterDeliveryView,
  changesCorrections,
  sendCorrection,
} from "../../islands/AfterDelivery.tsx";
import { ApiError } from "../../lib/console/api.ts";
import {
  type AreaPostDelivery,
  type PostDelivery,
  PostDeliverySchema,
} from "../../lib/wire/post_delivery.ts";
import { daySettlement, TENNET } from "../support/settlement_fixture.ts";

const DAY = "2026-11-27";

function area(over: Partial<AreaPostDelivery> = {}): AreaPostDelivery {
  return {
    control_area: TENNET,
    tso: "10XDE-EON-NETZ-C",
    tso_name: "TenneT TSO",
    calendar: "published",
    deadline: "2026-11-30T15:00:00Z",
    deadline_local: "Mon 30 Nov 2026 16:00",
    rule: "StromNZV § 5 (3): … TenneT's rule …",
    state: "open",
    standing_version: 7,
    proposal: {
      standing_version: 7,
      schedule_mw: Array(96).fill(1),
      known_quarter_hours: 96,
      changed_quarter_hours: 40,
      moved_mwh: Array(96).fill(0.05),
      moved_short_mwh: 3.25,
      moved_long_mwh: 1.5,
      value_eur: Array(96).fill(4),
      value_eur_total: 1234.5,
      unpriced_quarter_hours: 0,
    },
    corrections: [],
    ...over,
  };
}

const view = (a: AreaPostDelivery): PostDelivery =>
  PostDeliverySchema.parse({
    delivery_day: DAY,
    quarter_hours: [],
    delivery_end: "2026-11-27T23:00:00Z",
    computed_at: "2026-11-30T09:00:00Z",
    areas: [a],
  });

const text = (html: string) =>
  html.replace(/<[^>]+>/g, "").replace(/&#39;/g, "'").replace(/&amp;/g, "&").replace(/\s+/g, " ");

Deno.test("post-delivery console: the window in words, as the issue writes it", () => {
  assert.equal(windowText(area()), "Correction possible until Mon 30 Nov 16:00 (TenneT)");
  assert.equal(
    windowText(area({ state: "closed" })),
    "Corrections closed Mon 30 Nov 16:00 (TenneT)",
  );
  assert.equal(
    windowText(area({ state: "before_delivery", tso_name: "Amprion" })),
    "Corrections after delivery, until Mon 30 Nov 16:00 (Amprion)",
  );
});

Deno.test("post-delivery console: the question says what changes, what moves, its value, until when", () => {
  assert.equal(
    proposalQuestion(DAY, area(), "en-GB").replace(/\u00a0/g, " "),
    "Send a correction of Fri 27 Nov to TenneT replacing v7: the schedule becomes the actual in 40 quarter-hours, moving 3.25 MWh short and 1.50 MWh long imbalance to the counterparty (worth 1,234.50 EUR at reBAP). Possible until Mon 30 Nov 16:00.",
  );
  const a = area();
  a.proposal = { ...a.proposal!, value_eur_total: null, changed_quarter_hours: 1 };
  assert.match(
    proposalQuestion(DAY, a, "de-DE").replace(/\u00a0/g, " "),
    /in 1 quarter-hour, moving 3,25 MWh short and 1,50 MWh long imbalance to the counterparty \(no reBAP price is known for them yet\)/,
  );
});

Deno.test("post-delivery console: a button while open and something changes; none when closed or unchanged", () => {
  const render = (a: AreaPostDelivery) =>
    renderToString(
      <PostDeliveryCorrection
        day={DAY}
        area={a}
        locale="en-GB"
        onCorrect={() => Promise.resolve("")}
      />,
    );
  assert.match(render(area()), /Set the schedule to the actual…/);
  assert.doesNotMatch(render(area({ state: "closed" })), /<button/);
  const same = area();
  same.proposal = { ...same.proposal!, changed_quarter_hours: 0 };
  assert.doesNotMatch(render(same), /<button/);
  assert.doesNotMatch(render(area({ proposal: null })), /<button/);
  const sent = render(area({
    state: "closed",
    corrections: [{
      version: 8,
      sent_at: "2026-11-30T14:59:00Z",
      file: "x_008.xml",
      tso_status: "rejected",
      reason_text: "A02 not accepted",
    }],
  }));
  assert.match(
    text(sent),
    /post-delivery correction v8 sent Mon 30 Nov 15:59 · rejected · A02 not accepted/,
  );
});

Deno.test("post-delivery console: the after-delivery view shows the area's part under its settlement", () => {
  const s = daySettlement(DAY, "2026-11-26T23:00:00Z");
  const html = renderToString(
    <AfterDeliveryView
      day={DAY}
      load={{ kind: "ok", body: s }}
      locale="en-GB"
      nowMs={Date.parse("2026-11-30T09:00:00Z")}
      width={600}
      post={view(area())}
    />,
  );
  const i = html.indexOf(`data-area="${TENNET}"`);
  assert.ok(i > html.indexOf("settlement-area"), "inside the areas' sections");
  assert.match(text(html), /Correction possible until Mon 30 Nov 16:00 \(TenneT\)/);
  // Without the route's answer (an older service): no post-delivery part, the view as before.
  const without = renderToString(
    <AfterDeliveryView
      day={DAY}
      load={{ kind: "ok", body: s }}
      locale="en-GB"
      nowMs={0}
      width={600}
    />,
  );
  assert.doesNotMatch(without, /post-delivery/);
});

Deno.test("post-delivery console: sent in a sentence, refused with the service's sentence", async () => {
  const ok = await sendCorrection(DAY, TENNET, (path, body) => {
    assert.equal(path, `/v1/delivery-days/${DAY}/schedules/${TENNET}/post-delivery`);
    assert.deepEqual(body, { from: "actuals" });
    return Promise.resolve(
      { version: 8, tso_name: "TenneT TSO", file: "f_008.xml", changed_quarter_hours: 40 } as never,
    );
  });
  assert.equal(
    ok,
    "Correction v8 sent to TenneT TSO (f_008.xml): 40 quarter-hours set to the actual.",
  );
  await assert.rejects(
    () =>
      sendCorrection(
        DAY,
        TENNET,
        () =>
          Promise.reject(
            new ApiError(
              409,
              "The post-delivery correction window … closed at Mon 30 Nov 2026 16:00 Berlin",
            ),
          ),
      ),
    /The correction was not sent: The post-delivery correction window … closed at Mon 30 Nov 2026 16:00 Berlin/,
  );
  assert.equal(changesCorrections({ kind: "schedule_rejected", delivery_day: DAY }, DAY), true);
  assert.equal(
    changesCorrections({ kind: "schedule_rejected", delivery_day: "2026-11-26" }, DAY),
    false,
  );
  assert.equal(changesCorrections({ kind: "actuals_received", delivery_day: DAY }, DAY), false);
});
