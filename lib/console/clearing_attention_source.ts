/**
 * The stored side of the clearing lists' attention items (docs/console_attention.md): the
 * months still in their MaBiS correction phase (the delivery month and the seven after it) whose
 * lists wait for the operator (`lib/settlement/clearing_marks.ts`), as items with the end of each
 * month's main settlement (`lib/domain/mabis_calendar.ts`, loaded at the first such item: its
 * holiday calendar costs about 0.1 s to import).
 * @module
 */
import type { AttentionItem } from "../wire/attention.ts";
import { openClearings } from "../settlement/clearing_marks.ts";
import { clearingItems } from "./attention_clearing.ts";
import { berlinDate } from "./day_texts.ts";

/** The items of the clearing lists that wait, at `nowMs`. */
export async function clearingAttention(kv: Deno.Kv, nowMs: number): Promise<AttentionItem[]> {
  const since = Temporal.PlainDate.from(berlinDate(nowMs)).subtract({ months: 8 }).toString()
    .slice(0, 7);
  const open = await openClearings(kv, since);
  if (open.length === 0) return [];
  const { mabisDates } = await import("../domain/mabis_calendar.ts");
  return clearingItems(open, (m) => mabisDates(m).main_settlement_end);
}
