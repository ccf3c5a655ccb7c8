/**
 * Repeated failures are one story, not one event a minute (docs/api.md, "Event history"): while the
 * same orchestration error repeats — the sFTP inbox unreachable, the market platform down, a step
 * failing tick after tick — the first is stored as an event and every repeat is counted on it
 * (rewritten with `data.repeats`, `data.first_at`, `data.last_at`; its message ends "— again 37
 * times since 10:02 Berlin"); when the source works again, one `orchestration_recovered` event closes the story
 * ("… works again after 38 failures since 10:02 Berlin"). The process log follows: the first
 * event's line, nothing per repeat (a rewrite writes no line), the recovery line.
 *
 * The same error: same event kind, source (e.g. `step:publish`, `sftp_inbox:/in`), delivery day
 * and message once normalised ({@link normaliseMessage}: times, ids and every number — ports,
 * attempt counts, durations, status codes — do not make two failures different).
 *
 * Kept in KV (`KEYS.failureStory`, 7 days), so a restart continues the count. Replicas on one KV
 * file share the stories: each failure is one atomic check-and-set on the story, so two replicas
 * failing at the same instant count on one story and store one first event (the one that created
 * the story appends it; the other counts a repeat). A story whose first event was never written
 * (its process stopped in between) is taken over after two minutes; a story without a repeat for
 * an hour ends, and the next failure starts a new one.
 * @module
 */
import type { Clock } from "../clock.ts";
import type { EventLog, NewEvent } from "./events.ts";
import { retryKv } from "./kv.ts";
import { KEYS } from "./keys.ts";

/** One open story in KV. */
export interface FailureStory {
  /** The stored first event; `null` while its append is under way. */
  event_id: number | null;
  source: string;
  delivery_day: string | null;
  /** What failed, as the subject of the recovery sentence (e.g. `The sFTP inbox /in`). */
  label: string;
  /** The first failure's message. */
  message: string;
  /** First and latest failure, ISO-8601 UTC. */
  first_at: string;
  last_at: string;
  /** Failures after the first. */
  repeats: number;
}

/** What a story needs of the app. */
export interface StoryServices {
  kv: Deno.Kv;
  events: EventLog;
  clock: Clock;
}

/** Where a failure comes from: `source` is part of the story's identity, `label` names it. */
export interface FailureSource {
  source: string;
  label: string;
}

const TTL_MS = 7 * 86_400_000;
/** No repeat for this long: the story is over, the next failure starts a new one. */
const GAP_MS = 3_600_000;
/** A story whose first event is still missing after this long is taken over. */
const ORPHAN_MS = 120_000;
/** Rounds of one story's check-and-set before the failure is stored without a story. */
export const STORY_ATTEMPTS = 10;

/**
 * A failure message with what changes between two tries of the same error taken out: ISO
 * instants, UUIDs, hex ids and every number become placeholders; white space is collapsed.
 */
export function normaliseMessage(message: string): string {
  return message
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?/g, "<time>")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, "<id>")
    // Hex ids (a replica's name `replica-1a2b3c4d`, a request id) of 8 or more characters.
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b/gi, "<id>")
    .replace(/\d+(\.\d+)?/g, "#")
    .replace(/\s+/g, " ")
    .trim();
}

async function fingerprint(kind: string, source: string, day: string, message: string) {
  const text = [kind, source, day, normaliseMessage(message)].join("\n");
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(hash).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

// Made at the first use: the first `Intl.DateTimeFormat` of a process loads ICU's time-zone and
// locale data (~20-70 ms), which a process that never words a failure's time need not pay.
let berlin: Intl.DateTimeFormat | undefined;

/** The Berlin wall-clock formatter (date and minute, 24 h), made once. */
function berlinFormat(): Intl.DateTimeFormat {
  return berlin ??= new Intl.DateTimeFormat("en-GB", {
    timeZone: "Europe/Berlin",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
}

/** `10:02 Berlin`, or `2026-11-22 10:02 Berlin` when `iso` is on another Berlin day than `nowIso`. */
export function sinceBerlin(iso: string, nowIso: string): string {
  const parts = (s: string) =>
    Object.fromEntries(berlinFormat().formatToParts(new Date(s)).map((p) => [p.type, p.value]));
  const a = parts(iso);
  const b = parts(nowIso);
  const day = `${a.year}-${a.month}-${a.day}`;
  const sameDay = day === `${b.year}-${b.month}-${b.day}`;
  return `${sameDay ? "" : `${day} `}${a.hour}:${a.minute} Berlin`;
}

function times(n: number): string {
  return n === 1 ? "once" : `${n} times`;
}

/**
 * Rewrites the first event with the story's count; never back to a lower one. A rewrite that
 * fails is left to the next repeat (the story holds the count).
 */
async function rewrite(events: EventLog, id: number, s: FailureStory): Promise<void> {
  await events.update(id, {
    message: `${s.message} — again ${times(s.repeats)} since ${sinceBerlin(s.first_at, s.last_at)}`,
    data: { repeats: s.repeats, first_at: s.first_at, last_at: s.last_at },
  }, (cur) => Number(cur.data?.repeats ?? 0) < s.repeats).catch(() => {});
}

/**
 * Reports one failure: the first of its story is appended as `event` as it is, a repeat is
 * counted on the stored first event (rewritten, no new event). When the story cannot be read or
 * written ({@link STORY_ATTEMPTS} rounds: KV locked or down), the failure is appended as an
 * event of its own: the failure is never lost for its count.
 * @throws {KvContentionError} when the log stayed contended through every retry
 */
export async function reportFailure(
  svc: StoryServices,
  from: FailureSource,
  event: NewEvent,
): Promise<void> {
  const now = svc.clock.now();
  const at = new Date(now).toISOString();
  const day = event.delivery_day ?? null;
  const fp = await fingerprint(event.kind, from.source, day ?? "", event.message);
  const key = KEYS.failureStory(from.source, day, fp);
  const counted = await retryKv("failure story", async () => {
    const cur = await svc.kv.get<FailureStory>(key);
    const s = cur.value;
    const idle = s ? now - Date.parse(s.last_at) : 0;
    if (!s || idle > GAP_MS || (s.event_id === null && idle > ORPHAN_MS)) {
      const story: FailureStory = {
        event_id: null,
        source: from.source,
        delivery_day: day,
        label: from.label,
        // The story quotes it in the recovery and the rewrites: masked as the event is.
        message: svc.events.redactor.text(event.message),
        first_at: at,
        last_at: at,
        repeats: 0,
      };
      const ok = (await svc.kv.atomic().check(cur).set(key, story, { expireIn: TTL_MS }).commit())
        .ok;
      return ok ? { first: true as const } : undefined;
    }
    const next: FailureStory = { ...s, repeats: s.repeats + 1, last_at: at };
    const ok = (await svc.kv.atomic().check(cur).set(key, next, { expireIn: TTL_MS }).commit()).ok;
    return ok ? { first: false as const, story: next } : undefined;
  }, STORY_ATTEMPTS).catch(() => undefined);
  if (!counted) {
    await svc.events.append(event);
    return;
  }
  if (!counted.first) {
    // Without an event id the creator is still appending; it rewrites with our count after.
    if (counted.story.event_id !== null) {
      await rewrite(svc.events, counted.story.event_id, counted.story);
    }
    return;
  }
  const record = await svc.events.append(event);
  const story = await retryKv("failure story", async () => {
    const cur = await svc.kv.get<FailureStory>(key);
    // Gone (recovered meanwhile) or taken over: nothing to link.
    if (!cur.value || cur.value.event_id !== null || cur.value.first_at !== at) return null;
    const next = { ...cur.value, event_id: record.id };
    return (await svc.kv.atomic().check(cur).set(key, next, { expireIn: TTL_MS }).commit()).ok
      ? next
      : undefined;
  }, STORY_ATTEMPTS).catch(() => null); // unlinked: taken over after ORPHAN_MS
  // Repeats another replica counted while the first event was being written.
  if (story && story.repeats > 0) await rewrite(svc.events, record.id, story);
}

/**
 * Reports that `source` (of `day`, or of no day) works: every open story of it ends with one
 * `orchestration_recovered` event ("… works again after N failures since 10:02 Berlin").
 * Never throws: a story that could not be closed stays open and is closed at the next success
 * (`log`, when given, is told why).
 * @param by the caller, or `orchestrator`
 * @returns the number of stories closed
 */
export async function reportRecovery(
  svc: StoryServices & { log?: { error(kind: string, message: string, err?: unknown): void } },
  source: string,
  day: string | null,
  by: string,
): Promise<number> {
  try {
    const closed: FailureStory[] = [];
    for await (const e of svc.kv.list<FailureStory>(KEYS.failureStoriesOf(source, day))) {
      if ((await svc.kv.atomic().check(e).delete(e.key).commit()).ok) closed.push(e.value);
    }
    const now = new Date(svc.clock.now()).toISOString();
    for (const s of closed) {
      const n = s.repeats + 1;
      await svc.events.append({
        kind: "orchestration_recovered",
        level: "info",
        message: `${s.label} works again after ${n} failure${n === 1 ? "" : "s"} since ${
          sinceBerlin(s.first_at, now)
        } (first: ${s.message})`,
        caller: by,
        ...(s.delivery_day ? { delivery_day: s.delivery_day } : {}),
        data: {
          source,
          failures: n,
          first_at: s.first_at,
          last_at: s.last_at,
          failure_event_id: s.event_id,
        },
      });
    }
    return closed.length;
  } catch (err) {
    svc.log?.error("orchestration_error", `closing the failure story of ${source} failed`, err);
    return 0;
  }
}
