/**
 * Where the retention archive goes (docs/retention.md, "Archive target"): a local folder
 * (`ARCHIVE_DIR`) or a folder on the sFTP server of the runtime configuration
 * (`sftp_archive_dir`, the client of `lib/adapters/sftp.ts`). Every file is written under a
 * temporary name in its final folder and then renamed, so a reader — and a read-back — never
 * sees half a file.
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type SftpClient from "ssh2-sftp-client";
import { connectSftp, type SftpTarget, SftpUploadError } from "../adapters/sftp.ts";
import { Redactor, type TextRedactor } from "../store/redactor.ts";

/** An archive folder: paths are relative, `/`-separated (`2026/03/01/day.json`). */
export interface ArchiveTarget {
  /** `local:<dir>` or `sftp:<host>:<dir>`, for events and the status. */
  readonly name: string;
  /**
   * Writes `content` as `path` (folders created): temporary name, then rename over any old file.
   * @throws {Error} when the target refuses (disk full, permissions, sFTP failure)
   */
  write(path: string, content: Uint8Array): Promise<void>;
  /** The file's bytes, `null` when it does not exist. @throws {Error} on any other failure */
  read(path: string): Promise<Uint8Array | null>;
  /** Ends the connection (sFTP); safe to call twice. */
  close(): Promise<void>;
}

/** The archive in a local folder. */
export class LocalArchive implements ArchiveTarget {
  readonly name: string;
  #dir: string;
  /**
   * Folders made or being made by this object: each once per pruning run (the pruner makes one
   * target per run), shared by writes at once into one folder.
   */
  #made = new Map<string, Promise<unknown>>();

  /** @param dir the archive's root folder (created on the first write) */
  constructor(dir: string) {
    this.#dir = dir.replace(/\/+$/, "") || ".";
    this.name = `local:${this.#dir}`;
  }

  async write(path: string, content: Uint8Array): Promise<void> {
    const full = `${this.#dir}/${path}`;
    const folder = full.slice(0, full.lastIndexOf("/"));
    let made = this.#made.get(folder);
    if (!made) {
      made = Deno.mkdir(folder, { recursive: true });
      this.#made.set(folder, made);
      made.catch(() => this.#made.delete(folder));
    }
    await made;
    const temp = `${folder}/.${full.slice(folder.length + 1)}.${crypto.randomUUID()}.part`;
    try {
      await Deno.writeFile(temp, content);
      await Deno.rename(temp, full);
    } catch (err) {
      await Deno.remove(temp).catch(() => {});
      throw err;
    }
  }

  async read(path: string): Promise<Uint8Array | null> {
    try {
      return await Deno.readFile(`${this.#dir}/${path}`);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The archive in a folder on the sFTP server: one connection (opened on first use) for all the
 * files of one pruning run.
 */
export class SftpArchive implements ArchiveTarget {
  readonly name: string;
  #target: SftpTarget;
  #client: Promise<SftpClient> | undefined;
  /** Folders made or being made (writes at once into one folder share its making). */
  #made = new Map<string, Promise<unknown>>();
  /** The last folder making started. */
  #mkdirs: Promise<unknown> = Promise.resolve();
  #redactor: TextRedactor;

  /** @param target connection and `remoteDir` (the archive's root folder) */
  constructor(target: SftpTarget) {
    this.#target = target;
    this.name = `sftp:${target.host}:${target.remoteDir}`;
    this.#redactor = target.redactor ?? new Redactor([target.password, target.privateKey]);
  }

  #connect(): Promise<SftpClient> {
    this.#client ??= connectSftp(this.#target);
    this.#client.catch(() => this.#client = undefined);
    return this.#client;
  }

  #full(path: string): string {
    const root = this.#target.remoteDir.replace(/\/+$/, "") ||
      (this.#target.remoteDir.startsWith("/") ? "" : ".");
    return `${root}/${path}`;
  }

  #fail(what: string, err: unknown): never {
    if (err instanceof SftpUploadError) throw err;
    throw new SftpUploadError(
      "ERR_SFTP",
      `sFTP archive ${what} failed: ${this.#redactor.text((err as Error).message, 2000)}`,
    );
  }

  async write(path: string, content: Uint8Array): Promise<void> {
    const client = await this.#connect();
    const full = this.#full(path);
    const folder = full.slice(0, full.lastIndexOf("/"));
    const temp = `${folder}/.${full.slice(folder.length + 1)}.${crypto.randomUUID()}.part`;
    try {
      let made = this.#made.get(folder);
      if (!made) {
        // One after another: two recursive mkdirs at once race on their common parents.
        const making = this.#mkdirs.catch(() => {}).then(() => client.mkdir(folder, true));
        this.#made.set(folder, making);
        this.#mkdirs = making;
        making.catch(() => this.#made.delete(folder));
        made = making;
      }
      await made;
      await client.put(Buffer.from(content), temp);
      await client.posixRename(temp, full);
    } catch (err) {
      await client.delete(temp, true).catch(() => {});
      this.#fail(`write of ${full}`, err);
    }
  }

  async read(path: string): Promise<Uint8Array | null> {
    const client = await this.#connect();
    const full = this.#full(path);
    try {
      if (!(await client.exists(full))) return null;
      const data = await client.get(full);
      return new Uint8Array(data as Buffer);
    } catch (err) {
      this.#fail(`read of ${full}`, err);
    }
  }

  async close(): Promise<void> {
    const c = this.#client;
    this.#client = undefined;
    if (c) await (await c.catch(() => undefined))?.end().catch(() => {});
  }
}

/**
 * Lowercase hex SHA-256 of `bytes`. Synchronous (`node:crypto`): an archived day hashes some ten
 * small files twice, and Web Crypto's promise round trip per file cost more than the hashing.
 */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
