/**
 * Local directories the service writes to (`outbox_dir`, `schedule_inbox_dir`): a check that a
 * directory is usable before it is configured, and the file-system errors of a write in words an
 * operator can act on (docs/console.md, "Errors in words"). The runtime's own texts never reach an
 * operator: Deno's permission error says "run again with the --allow-write flag", advice for a
 * developer, not for the person who runs the service.
 * @module
 */
import { resolve } from "node:path";

/** A write into a local directory failed; `message` is a sentence for the operator. */
export class LocalDirError extends Error {
  /** The directory, as an absolute path. */
  readonly dir: string;
  constructor(dir: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "LocalDirError";
    this.dir = dir;
  }
}

/** `dir` as an absolute path (relative ones from the service's working directory). */
export function absoluteDir(dir: string): string {
  return resolve(dir);
}

/**
 * The sentence for a file-system error met while writing into `dir`, or `null` when `err` is
 * not one this module words (the caller keeps its own text then).
 * - no permission (the OS's `PermissionDenied`, the runtime's `NotCapable`): "the service may
 *   not write to /…: check the directory and the permissions of the service's user";
 * - a file where the directory should be: "/… is a file, not a directory";
 * - a read-only file system, a full disk: said so.
 */
export function dirProblem(err: unknown, dir: string): string | null {
  const abs = absoluteDir(dir);
  if (err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotCapable) {
    return `the service may not write to ${abs}: check the directory and the permissions of the service's user`;
  }
  if (err instanceof Deno.errors.NotADirectory || err instanceof Deno.errors.AlreadyExists) {
    return `${abs} is a file or lies below a file, not a directory: choose a directory`;
  }
  const text = err instanceof Error ? err.message : "";
  if (/read-only file system|os error 30\b/i.test(text)) {
    return `${abs} is on a read-only file system: choose a writable directory`;
  }
  if (/no space left|os error 28\b/i.test(text)) {
    return `the disk holding ${abs} is full: free space or choose another directory`;
  }
  return null;
}

/**
 * Runs `write` (a write into `dir`); a file-system error this module words is thrown again as a
 * {@link LocalDirError} with that sentence (the original as its `cause`).
 * @throws {LocalDirError} or whatever `write` throws otherwise
 */
export async function inDir<T>(dir: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const problem = dirProblem(err, dir);
    if (problem) throw new LocalDirError(absoluteDir(dir), problem, { cause: err });
    throw err;
  }
}

/**
 * Checks that the service can use `dir`: it exists or can be created, is a directory, and a file
 * can be created and removed in it (a probe file `.write-check-<uuid>`).
 * @returns `null` when usable, else the problem in words
 */
export async function checkWritableDir(dir: string): Promise<string | null> {
  const abs = absoluteDir(dir);
  const probe = `${abs}/.write-check-${crypto.randomUUID()}`;
  try {
    await Deno.mkdir(abs, { recursive: true });
    if (!(await Deno.stat(abs)).isDirectory) {
      return dirProblem(new Deno.errors.NotADirectory(), abs);
    }
    await Deno.writeFile(probe, new Uint8Array(), { createNew: true });
    await Deno.remove(probe);
    return null;
  } catch (err) {
    return dirProblem(err, abs) ??
      `${abs} cannot be used as a directory (${err instanceof Error ? err.name : "error"})`;
  }
}
