/**
 * One pass over an inbox folder (local or sFTP, `lib/fahrplan/inbox_source.ts`): every waiting
 * file is claimed (a rename: one importer per file, also across replicas), recognised by its
 * content, imported, and moved to `processed/` — or to `rejected/` with `<name>.reason.txt` beside
 * it saying why. Refused input (an {@link InvalidInput}) is the file's fault; any other failure (a
 * store that stayed contended) is said as such, and the file can be put back. The weather inbox
 * (docs/weather.md, "Inbox") runs on it ({@link importInboxes}: its local folder, then its folder
 * on the sFTP server).
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
import { InvalidInput } from "../domain/errors.ts";
import { type InboxSource, localInbox, sftpInbox } from "../fahrplan/inbox_source.ts";
import type { TextRedactor } from "../store/redactor.ts";
import { sftpTargetOf } from "./sftp_target.ts";

/** What happened to one file. */
export interface InboxFileResult<K extends string> {
  file: string;
  outcome: "imported" | "rejected";
  /** What the file was recognised as; absent when not recognised. */
  kind?: K;
  /** The import's sentence, or why the file was rejected. */
  message: string;
}

/** How one inbox reads its files. */
export interface InboxReader<K extends string> {
  /** What a file holds, from its bytes; `null` when not recognised. */
  recognise(bytes: Uint8Array): K | null;
  /** The reason for a file that is not recognised, in words. */
  notRecognised: string;
  /**
   * Imports a recognised file; returns the import's sentence.
   * @throws {InvalidInput} the file is refused (nothing of it stored)
   */
  importFile(kind: K, bytes: Uint8Array, name: string): Promise<string>;
  /** Records a rejected file (an event), after it was moved. */
  rejected(name: string, kind: K | null, reason: string): Promise<void>;
}

/** The first three problems of a refusal in one sentence. */
function reasonOf(err: unknown): string {
  if (err instanceof InvalidInput) {
    const msgs = err.issues.map((i) => i.msg);
    return msgs.slice(0, 3).join("; ") + (msgs.length > 3 ? ` (and ${msgs.length - 3} more)` : "");
  }
  return `it could not be stored (${
    (err as Error).message
  }); part of it may be stored: put the file back into the inbox to import it again`;
}

/**
 * Imports every file waiting in `source`, in name order.
 * @throws Error when the folder cannot be listed or a file not moved (the caller reports it)
 */
export async function importInboxFiles<K extends string>(
  source: InboxSource,
  reader: InboxReader<K>,
): Promise<InboxFileResult<K>[]> {
  const out: InboxFileResult<K>[] = [];
  for (const name of await source.list()) {
    const claimed = await source.claim(name);
    if (!claimed) continue; // another importer took it
    const bytes = await claimed.bytes();
    const kind = reader.recognise(bytes);
    let reason = reader.notRecognised;
    if (kind !== null) {
      try {
        const message = await reader.importFile(kind, bytes, name);
        await claimed.moveTo("processed");
        out.push({ file: name, outcome: "imported", kind, message });
        continue;
      } catch (err) {
        reason = reasonOf(err);
      }
    }
    await claimed.moveTo("rejected", reason);
    await reader.rejected(name, kind, reason);
    out.push({ file: name, outcome: "rejected", kind: kind ?? undefined, message: reason });
  }
  return out;
}

/** An inbox's two folders: a local one and one on the sFTP server of `sftp_host`. */
export interface InboxFolders {
  /** The local folder (`null`: none). */
  local: string | null;
  /** The folder on the sFTP server (`null`: none). */
  sftp: string | null;
  /** The field naming the remote folder, for the refusal when the sFTP login is not configured. */
  sftpField: string;
}

/**
 * Imports every file waiting in an inbox's local folder, then in its folder on the sFTP server
 * (one connection, closed after).
 * @param reader how the files are read, per folder (its events name the folder)
 * @throws Error when a configured folder cannot be read or the sFTP login is not configured
 */
export async function importInboxes<K extends string>(
  cfg: EffectiveConfig,
  folders: InboxFolders,
  redactor: TextRedactor,
  reader: (source: InboxSource) => InboxReader<K>,
): Promise<InboxFileResult<K>[]> {
  const out: InboxFileResult<K>[] = [];
  if (folders.local) {
    const local = localInbox(folders.local);
    out.push(...await importInboxFiles(local, reader(local)));
  }
  if (folders.sftp) {
    const target = sftpTargetOf(cfg, folders.sftp, `${folders.sftpField} is set`, redactor);
    const remote = await sftpInbox(target);
    try {
      out.push(...await importInboxFiles(remote, reader(remote)));
    } finally {
      await remote.close();
    }
  }
  return out;
}
