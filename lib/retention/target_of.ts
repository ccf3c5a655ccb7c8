/**
 * The configured archive target (docs/retention.md, "Archive target"): the folder
 * `sftp_archive_dir` on the sFTP server of the runtime configuration when it is set, else the
 * local folder `ARCHIVE_DIR`.
 * @module
 */
import { sftpTargetOf } from "../adapters/sftp_target.ts";
import type { EffectiveConfig } from "../config/fields.ts";
import type { TextRedactor } from "../store/redactor.ts";
import { type ArchiveTarget, LocalArchive, SftpArchive } from "./target.ts";

/**
 * The archive target of `cfg` and `archiveDir`.
 * @throws {Error} when `sftp_archive_dir` is set but the sFTP login is not configured
 */
export function archiveTargetOf(
  cfg: EffectiveConfig,
  archiveDir: string,
  redactor?: TextRedactor,
): ArchiveTarget {
  if (!cfg.sftp_archive_dir) return new LocalArchive(archiveDir);
  return new SftpArchive(
    sftpTargetOf(cfg, cfg.sftp_archive_dir, "sftp_archive_dir is set", redactor),
  );
}

/** `local` or `sftp` and the folder, for the status. */
export function archiveWhere(
  cfg: EffectiveConfig,
  archiveDir: string,
): { target: "local" | "sftp"; dir: string } {
  return cfg.sftp_archive_dir
    ? { target: "sftp", dir: cfg.sftp_archive_dir }
    : { target: "local", dir: archiveDir };
}
