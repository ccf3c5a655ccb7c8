/**
 * The post-delivery correction of one control area in the after-delivery view (docs/console.md,
 * "After delivery"; docs/post-delivery.md): while the TSO's window is open "correction possible
 * until Mon 30 Nov 16:00 (TenneT)" and a button that proposes to set the schedule to the actual,
 * confirmed in words (what changes, how much imbalance moves to the counterparty, until when);
 * once closed, when it closed; and the corrections already sent with the TSO's answer. Reads
 * `AreaPostDelivery` of `GET /v1/delivery-days/{day}/post-delivery` (lib/wire/post_delivery.ts).
 * @module
 */
import { useState } from "preact/hooks";
import type { AreaPostDelivery } from "../lib/wire/post_delivery.ts";
import { berlinDate, weekdayDate } from "../lib/console/day_texts.ts";
import { energy, formatBerlinHm, money } from "../lib/console/format.ts";
import { ConfirmButton } from "./ConfirmButton.tsx";

/** `Mon 30 Nov 16:00`: an instant in Berlin, as the console writes days. */
export function berlinWhen(iso: string): string {
  return `${weekdayDate(berlinDate(Date.parse(iso)))} ${formatBerlinHm(iso)}`;
}

/** The TSO as people say it: `TenneT`, `Amprion`, `50Hertz`, `TransnetBW`, else its EIC. */
const tsoWord = (a: Pick<AreaPostDelivery, "tso_name">) => a.tso_name.replace(/ TSO$/, "");

/** The window in words: `correction possible until Mon 30 Nov 16:00 (TenneT)`, or closed. */
export function windowText(a: AreaPostDelivery): string {
  const when = `${berlinWhen(a.deadline)} (${tsoWord(a)})`;
  if (a.state === "open") return `Correction possible until ${when}`;
  if (a.state === "closed") return `Corrections closed ${when}`;
  return `Corrections after delivery, until ${when}`;
}

/**
 * The confirming question of "set the schedule to the actual": which version replaces which,
 * how many quarter-hours change, the imbalance that moves and its value, until when.
 */
export function proposalQuestion(day: string, a: AreaPostDelivery, locale: string): string {
  const p = a.proposal!;
  const mwh = (v: number) => energy(v, locale);
  const value = p.value_eur_total === null
    ? "no reBAP price is known for them yet"
    : `worth ${money(p.value_eur_total, locale)} at reBAP${
      p.unpriced_quarter_hours ? ` (${p.unpriced_quarter_hours} quarter-hours without a price)` : ""
    }`;
  return `Send a correction of ${weekdayDate(day)} to ${
    tsoWord(a)
  } replacing v${p.standing_version}: the schedule becomes the actual in ${p.changed_quarter_hours} quarter-hour${
    p.changed_quarter_hours === 1 ? "" : "s"
  }, moving ${mwh(p.moved_short_mwh)} short and ${
    mwh(p.moved_long_mwh)
  } long imbalance to the counterparty (${value}). Possible until ${berlinWhen(a.deadline)}.`;
}

/** Props of {@link PostDeliveryCorrection}. */
export interface PostDeliveryCorrectionProps {
  day: string;
  area: AreaPostDelivery;
  locale: string;
  /** Sends the correction from the actuals; resolves to a sentence, rejects with one. */
  onCorrect?: () => Promise<string>;
}

/** The window line, the proposal button and the corrections sent, for one area. */
export function PostDeliveryCorrection(
  { day, area, locale, onCorrect }: PostDeliveryCorrectionProps,
) {
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const p = area.proposal;
  const offer = area.state === "open" && p && p.changed_quarter_hours > 0 && onCorrect;
  return (
    <div class="post-delivery" data-area={area.control_area} data-state={area.state}>
      <p class="post-delivery-window">
        <span class={area.state === "open" ? "ok" : "muted"}>{windowText(area)}</span>{" "}
        <span class="muted" title={area.rule}>
          · {area.calendar === "statutory" ? "statutory rule" : "the TSO's calendar"}
        </span>
      </p>
      {offer && (
        <ConfirmButton
          label="Set the schedule to the actual…"
          question={proposalQuestion(day, area, locale)}
          confirmLabel="Yes, send the correction"
          name={`correct-${area.control_area}`}
          onConfirm={async () => {
            try {
              setNote({ ok: true, text: await onCorrect() });
            } catch (err) {
              setNote({ ok: false, text: (err as Error).message ?? String(err) });
            }
          }}
        />
      )}
      {note && (
        <p class={note.ok ? "ok" : "error"} role={note.ok ? "status" : "alert"}>{note.text}</p>
      )}
      {area.corrections.length > 0 && (
        <ul class="corrections">
          {area.corrections.map((c) => (
            <li key={c.version} data-version={c.version}>
              post-delivery correction v{c.version} sent {berlinWhen(c.sent_at)} · {c.tso_status}
              {c.reason_text ? ` · ${c.reason_text}` : ""}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
