/**
 * The sFTP connection of the runtime configuration (docs/pipeline.md, "Publish"; "Schedules to
 * the TSO (Fahrplan)"): one host, login and pinned host key serve the publish target and the
 * remote inbox; only the folder differs.
 * @module
 */
import type { EffectiveConfig } from "../config/fields.ts";
import type { TextRedactor } from "../store/redactor.ts";
import type { SftpTarget } from "./sftp.ts";

/**
 * The {@link SftpTarget} for `remoteDir` from `sftp_host`, `sftp_port`, `sftp_username`,
 * `sftp_password` or `sftp_private_key`, and `sftp_host_key_sha256`.
 * @param why what needs sFTP, in words, for the refusal (`publish_target is sftp`)
 * @throws {Error} "`why` but sftp_host, sftp_username and a password or private key are not all
 *   configured"
 */
export function sftpTargetOf(
  cfg: EffectiveConfig,
  remoteDir: string,
  why: string,
  redactor?: TextRedactor,
): SftpTarget {
  if (!cfg.sftp_host || !cfg.sftp_username || (!cfg.sftp_password && !cfg.sftp_private_key)) {
    throw new Error(
      `${why} but sftp_host, sftp_username and a password or private key are not all configured`,
    );
  }
  return {
    host: cfg.sftp_host,
    port: cfg.sftp_port,
    username: cfg.sftp_username,
    password: cfg.sftp_password,
    privateKey: cfg.sftp_private_key,
    hostKeySha256: cfg.sftp_host_key_sha256,
    remoteDir,
    redactor,
  };
}
