/**
 * Upload over sFTP with `npm:ssh2-sftp-client` (docs/pipeline.md, "Publish"): the file is written under a
 * temporary name and then renamed (OpenSSH `posix-rename`), so a reader never sees half a file.
 * The server's host key is pinned by its SHA-256 fingerprint when one is configured.
 *
 * `npm:ssh2-sftp-client` (with ssh2 and its ciphers) is loaded at the first connection, not when
 * the service starts: most deployments publish to the local outbox, and loading it costs ~0.05 s
 * CPU per process (each test file is one).
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import type SftpClient from "ssh2-sftp-client";
import { Redactor, type TextRedactor } from "../store/redactor.ts";

/** Connection and target of an upload. */
export interface SftpTarget {
  host: string;
  port: number;
  username: string;
  /** Password login (write-only secret). */
  password?: string | null;
  /** Private-key login, PEM or OpenSSH format (write-only secret). */
  privateKey?: string | null;
  /** `SHA256:<base64>` as `ssh-keygen -lf` prints it; unset = any host key is accepted. */
  hostKeySha256?: string | null;
  /** Remote directory. */
  remoteDir: string;
  /** Connect timeout in ms (default 10 s). */
  timeoutMs?: number;
  /**
   * Masks secrets in the server's and the library's error texts before they are quoted
   * (default: masks `password` and `privateKey`). Pass the app's redactor to mask every secret.
   */
  redactor?: TextRedactor;
}

/** The upload was refused; `message` says why and has passed the redactor (no secret in it). */
export class SftpUploadError extends Error {
  readonly code: "ERR_SFTP_HOST_KEY" | "ERR_SFTP";
  constructor(code: "ERR_SFTP_HOST_KEY" | "ERR_SFTP", message: string) {
    super(message);
    this.name = "SftpUploadError";
    this.code = code;
  }
}

/** OpenSSH-style fingerprint of a raw public-key blob: `SHA256:` + unpadded base64. */
export function sshFingerprint(keyBlob: Uint8Array): string {
  return "SHA256:" + createHash("sha256").update(keyBlob).digest("base64").replace(/=+$/, "");
}

let clientClass: Promise<typeof SftpClient> | undefined;

/** The client class of `npm:ssh2-sftp-client`, imported once at the first connection. */
function sftpClientClass(): Promise<typeof SftpClient> {
  return clientClass ??= import("ssh2-sftp-client").then((m) => m.default);
}

/** The part of the `ssh2` client under `ssh2-sftp-client` used here (ssh2's README, "Client"). */
type NoDelayClient = {
  once(event: "connect", listener: () => void): unknown;
  setNoDelay(noDelay: boolean): unknown;
};

/**
 * A connected client (host key checked against the pin first); the caller ends it.
 * @throws {SftpUploadError} `ERR_SFTP_HOST_KEY` on a fingerprint mismatch (nothing is sent),
 *   `ERR_SFTP` when the connection or the login fails
 */
export async function connectSftp(target: SftpTarget): Promise<SftpClient> {
  const Client = await sftpClientClass();
  const client = new Client("scheduling-bridge");
  const redactor = target.redactor ?? new Redactor([target.password, target.privateKey]);
  const cause = (err: unknown) => redactor.text((err as Error).message, 2000);
  let seen: string | undefined;
  // No Nagle on the SSH socket (ssh2 `Client.setNoDelay`, called once the TCP connection is up):
  // with it every request/answer round of the login and of each sFTP operation waited for the
  // peer's delayed ACK (~40 ms on Linux), ~0.3 s per connection and ~0.2 s per upload.
  const ssh = (client as unknown as { client: NoDelayClient }).client;
  ssh.once("connect", () => ssh.setNoDelay(true));
  try {
    await client.connect({
      host: target.host,
      port: target.port,
      username: target.username,
      password: target.password ?? undefined,
      privateKey: target.privateKey ?? undefined,
      readyTimeout: target.timeoutMs ?? 10_000,
      // A server that stalls mid-transfer is dropped after ~15 s instead of hanging the step.
      keepaliveInterval: 5_000,
      keepaliveCountMax: 3,
      hostVerifier: (key: Buffer) => {
        seen = sshFingerprint(key);
        return !target.hostKeySha256 || seen === target.hostKeySha256.replace(/=+$/, "");
      },
    });
    return client;
  } catch (err) {
    await client.end().catch(() => {});
    if (target.hostKeySha256 && seen && seen !== target.hostKeySha256.replace(/=+$/, "")) {
      throw new SftpUploadError(
        "ERR_SFTP_HOST_KEY",
        `sFTP host key of ${target.host}:${target.port} is ${seen}, not the pinned ${target.hostKeySha256}; nothing was transferred.`,
      );
    }
    throw new SftpUploadError(
      "ERR_SFTP",
      `sFTP connection to ${target.host}:${target.port} failed: ${cause(err)}`,
    );
  }
}

/**
 * Uploads `content` as `<remoteDir>/<fileName>`.
 * @returns the final remote path
 * @throws {SftpUploadError} `ERR_SFTP_HOST_KEY` on a fingerprint mismatch (nothing is sent),
 *   `ERR_SFTP` for any other failure (login, permissions, network)
 */
export async function uploadViaSftp(
  target: SftpTarget,
  fileName: string,
  content: string,
): Promise<string> {
  const redactor = target.redactor ?? new Redactor([target.password, target.privateKey]);
  const cause = (err: unknown) => redactor.text((err as Error).message, 2000);
  const trimmed = target.remoteDir.replace(/\/+$/, "");
  const dir = trimmed || (target.remoteDir.startsWith("/") ? "" : ".");
  const finalPath = `${dir}/${fileName}`;
  const tempPath = `${dir}/.${fileName}.${crypto.randomUUID()}.part`;
  const client = await connectSftp(target);
  try {
    await client.put(Buffer.from(content, "utf8"), tempPath);
    await client.posixRename(tempPath, finalPath);
    return finalPath;
  } catch (err) {
    await client.delete(tempPath, true).catch(() => {});
    throw new SftpUploadError(
      "ERR_SFTP",
      `sFTP upload to ${target.host}:${finalPath} failed: ${cause(err)}`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}
