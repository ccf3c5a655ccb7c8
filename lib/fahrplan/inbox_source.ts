/**
 * Where the TSO's answer files wait (docs/fahrplan.md): the
 * local `schedule_inbox_dir` and, when set, `sftp_inbox_dir` on the sFTP server. Both work the
 * same way: a file is claimed by renaming it to a hidden name — a rename succeeds for exactly one
 * importer, also across replicas and hosts — then read, then renamed into `processed/` or
 * `rejected/` inside the inbox. Files whose name starts with `.` (temporary, claimed) are never
 * listed, so half-written files of a gateway that writes then renames are never read.
 * @module
 */
import { Buffer } from "node:buffer";
import type SftpClient from "ssh2-sftp-client";
import { dirProblem, inDir, LocalDirError } from "../adapters/local_dir.ts";
import { connectSftp, type SftpTarget } from "../adapters/sftp.ts";

/** One claimed answer file. */
export interface ClaimedFile {
  /** Its name in the inbox. */
  name: string;
  /** The file's text (UTF-8). */
  text(): Promise<string>;
  /** The file's bytes, for a format that names its own character set (EDIFACT's `UNB`). */
  bytes(): Promise<Uint8Array>;
  /**
   * Moves it to `<inbox>/<folder>/<name>` (a later file of the same name wins); with `reason`, the
   * reason in words goes beside it as `<name>.reason.txt` (docs/fahrplan.md, "Schema validation").
   */
  moveTo(folder: "processed" | "rejected", reason?: string): Promise<void>;
}

/** An inbox. */
export interface InboxSource {
  /** The inbox in words for events: `the inbox ./data/inbox`, `the sFTP inbox host:/in`. */
  where: string;
  /** Names of the waiting files, sorted; none when the folder does not exist. */
  list(): Promise<string[]>;
  /** Claims `name`; `null` when another importer took it first. */
  claim(name: string): Promise<ClaimedFile | null>;
  close(): Promise<void>;
}

const claimedName = (name: string) => `.importing-${crypto.randomUUID()}-${name}`;

/** The local folder `dir`. */
export function localInbox(dir: string): InboxSource {
  const base = dir.replace(/\/+$/, "") || "/";
  return {
    where: `the inbox ${base}`,
    async list() {
      const names: string[] = [];
      try {
        for await (const e of Deno.readDir(base)) {
          if (e.isFile && !e.name.startsWith(".")) names.push(e.name);
        }
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return [];
        const problem = dirProblem(err, base);
        throw problem ? new LocalDirError(base, problem, { cause: err }) : err;
      }
      return names.sort();
    },
    async claim(name) {
      const path = `${base}/${claimedName(name)}`;
      try {
        await Deno.rename(`${base}/${name}`, path);
      } catch (err) {
        // No permission is said in words; any other failure: another reader took the file.
        const problem = dirProblem(err, base);
        if (problem) throw new LocalDirError(base, problem, { cause: err });
        return null;
      }
      return {
        name,
        text: () => Deno.readTextFile(path),
        bytes: () => Deno.readFile(path),
        moveTo: (folder, reason) =>
          inDir(base, async () => {
            await Deno.mkdir(`${base}/${folder}`, { recursive: true });
            if (reason !== undefined) {
              await Deno.writeTextFile(`${base}/${folder}/${name}.reason.txt`, `${reason}\n`);
            }
            await Deno.rename(path, `${base}/${folder}/${name}`);
          }),
      };
    },
    close: () => Promise.resolve(),
  };
}

/**
 * The remote folder `target.remoteDir`, over one sFTP connection until `close()`.
 * @throws {import("../adapters/sftp.ts").SftpUploadError} when the connection or login fails
 */
export async function sftpInbox(target: SftpTarget): Promise<InboxSource> {
  const client: SftpClient = await connectSftp(target);
  const base = target.remoteDir.replace(/\/+$/, "") || (target.remoteDir ? "/" : ".");
  return {
    where: `the sFTP inbox ${target.host}:${base}`,
    async list() {
      if (!(await client.exists(base))) return [];
      const entries: { type: string; name: string }[] = await client.list(base);
      return entries.filter((e) => e.type === "-" && !e.name.startsWith(".")).map((e) => e.name)
        .sort();
    },
    async claim(name) {
      const path = `${base}/${claimedName(name)}`;
      try {
        await client.rename(`${base}/${name}`, path); // SSH_FXP_RENAME fails if taken: one winner
      } catch {
        return null;
      }
      const bytes = async (): Promise<Uint8Array> => {
        const data = await client.get(path);
        return Buffer.isBuffer(data)
          ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
          : new TextEncoder().encode(String(data));
      };
      return {
        name,
        text: async () => new TextDecoder("utf-8", { ignoreBOM: true }).decode(await bytes()),
        bytes,
        async moveTo(folder, reason) {
          if (!(await client.exists(`${base}/${folder}`))) {
            await client.mkdir(`${base}/${folder}`, true).catch(() => {}); // a replica may race
          }
          if (reason !== undefined) {
            await client.put(Buffer.from(`${reason}\n`), `${base}/${folder}/${name}.reason.txt`);
          }
          await client.posixRename(path, `${base}/${folder}/${name}`);
        },
      };
    },
    async close() {
      await client.end().catch(() => {});
    },
  };
}
