/**
 * Group commit of single market-location changes (docs/pipeline.md, "Market locations";
 * docs/mixed-load.md): the single `PUT`s of one process that wait for the master-data lock are
 * committed together, in one master-data commit — one bump of the master-data version and of
 * each open delivery day instead of one per `PUT`. Under a stream of single `PUT`s the waits for
 * the lock shorten, and the forecast uploads and the forecast step, whose commits check the day
 * states that every master-data commit bumps, lose fewer rounds.
 *
 * Each `PUT` keeps its own answer (created or replaced, or unchanged) and its own `updated_at`;
 * the group is all or nothing, each location's entry checked as read. A group holds changes of
 * one caller (the days' `last_input` names one) and one location at most once.
 * @module
 */
import type { MarketLocation } from "./market_location_record.ts";
import { getManyChunked } from "../store/kv.ts";
import { KEYS } from "../store/keys.ts";
import {
  classTableForChange,
  commitMasterData,
  type LocationChange,
  type MasterDataChange,
  retryMasterData,
} from "./master_data.ts";
import type { TurnGuard } from "../store/turn.ts";

/**
 * Changes committed together at most: each location's check, the master-data version's and the
 * turn's must fit the 10 checks per atomic of KV Connect to `denokv` (`maxChecks` of
 * lib/store/kv.ts); the open days take what is left of the store's checks (90 of Deno's 100).
 */
export const GROUP_MAX = 8;

/** The answer of one change: the location as stored, and whether it was new. */
export interface PutOutcome {
  location: MarketLocation;
  created: boolean;
}

interface Pending {
  location: MarketLocation;
  atMs: number;
  change: MasterDataChange | undefined;
  taken: boolean;
  resolve: (r: PutOutcome) => void;
  reject: (e: unknown) => void;
}

/** Per store: the changes waiting for the master-data lock, in call order. */
const queues = new WeakMap<Deno.Kv, Pending[]>();

/**
 * Creates or replaces `location` (see `putMarketLocation` of `./market_locations.ts`), committed
 * with the other single changes of this process that are waiting for the master-data lock when
 * its turn comes ({@link GROUP_MAX} at most).
 * @param same whether a stored record already has the fields of `location` (then nothing is written)
 * @throws {import("../store/kv.ts").KvContentionError} when the group's rounds ran out (503)
 */
export function putGrouped(
  kv: Deno.Kv,
  location: MarketLocation,
  atMs: number,
  change: MasterDataChange | undefined,
  same: (stored: MarketLocation | null, next: MarketLocation) => boolean,
): Promise<PutOutcome> {
  let queue = queues.get(kv);
  if (!queue) queues.set(kv, queue = []);
  const { promise, resolve, reject } = Promise.withResolvers<PutOutcome>();
  const me: Pending = { location, atMs, change, taken: false, resolve, reject };
  queue.push(me);
  // The group is taken in the first round, under the master-data lock: the changes that queued
  // behind the lock meanwhile join it. A change an earlier group took ends its own rounds there.
  let group: Pending[] | undefined;
  retryMasterData(kv, () => describe(group ?? [me]), async (turn) => {
    if (!group) {
      if (me.taken) return JOINED;
      group = take(queue, me);
    }
    return await groupRound(kv, group, same, turn);
  }).then((out) => {
    if (out !== JOINED) group!.forEach((p, i) => p.resolve(out[i]));
  }, (err) => {
    for (const p of group ?? [me]) p.reject(err);
  });
  return promise;
}

/** What a change that an earlier group took answers from its own rounds. */
const JOINED = Symbol("joined an earlier group");

/** `me` and the waiting changes that may join it (same caller, other locations), taken out. */
function take(queue: Pending[], me: Pending): Pending[] {
  const group = [me];
  const ids = new Set([me.location.malo_id]);
  me.taken = true;
  for (const p of queue) {
    if (group.length >= GROUP_MAX) break;
    if (p.taken || ids.has(p.location.malo_id) || !sameChange(p.change, me.change)) continue;
    p.taken = true;
    ids.add(p.location.malo_id);
    group.push(p);
  }
  const rest = queue.filter((p) => !p.taken);
  queue.splice(0, queue.length, ...rest);
  return group;
}

function sameChange(a: MasterDataChange | undefined, b: MasterDataChange | undefined): boolean {
  return a?.by === b?.by && a?.gateClosureLocalTime === b?.gateClosureLocalTime;
}

/** Names the group's change in an error. */
function describe(group: Pending[]): string {
  const first = group[0].location.malo_id;
  return group.length === 1
    ? `put market location ${first}`
    : `put market location ${first} (with ${group.length - 1} more in one commit)`;
}

/** One round of the group's master-data commit; `undefined` when its check failed. */
async function groupRound(
  kv: Deno.Kv,
  group: Pending[],
  same: (stored: MarketLocation | null, next: MarketLocation) => boolean,
  turn: TurnGuard,
): Promise<PutOutcome[] | undefined> {
  const read = await classTableForChange(kv); // before the locations: see commitMasterData
  const prev = await getManyChunked<MarketLocation>(
    kv,
    group.map((p) => KEYS.marketLocation(p.location.malo_id)),
  );
  const changes: LocationChange[] = [];
  const out = group.map((p, i): PutOutcome => {
    const stored = prev[i].value;
    if (same(stored, p.location)) return { location: stored!, created: false };
    changes.push({ entry: prev[i], next: p.location });
    return { location: p.location, created: stored === null };
  });
  if (!changes.length) return out;
  const atMs = Math.max(...group.map((p) => p.atMs));
  const ok = await commitMasterData(kv, read, changes, true, atMs, group[0].change, turn);
  return ok ? out : undefined;
}
