/**
 * The local outbox (docs/pipeline.md, "Publish"): used when no sFTP host is configured. Files are written under a
 * temporary name in the same directory and renamed, so a reader never sees half a file.
 * @module
 */

import { inDir } from "./local_dir.ts";

/**
 * Writes `content` to `<dir>/<fileName>` atomically (write temp, fsync, rename).
 * @returns the final path
 * @throws {import("./local_dir.ts").LocalDirError} with a sentence for no permission, a file
 *   in the way, a read-only or full disk; whatever else the file system throws
 */
export function writeToOutbox(dir: string, fileName: string, content: string): Promise<string> {
  return inDir(dir, () => write(dir, fileName, content));
}

async function write(dir: string, fileName: string, content: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const finalPath = `${dir.replace(/\/+$/, "")}/${fileName}`;
  const tempPath = `${dir.replace(/\/+$/, "")}/.${fileName}.${crypto.randomUUID()}.part`;
  const file = await Deno.open(tempPath, { write: true, createNew: true });
  try {
    await file.write(new TextEncoder().encode(content));
    await file.sync();
  } finally {
    file.close();
  }
  try {
    await Deno.rename(tempPath, finalPath);
  } catch (err) {
    await Deno.remove(tempPath).catch(() => {});
    throw err;
  }
  return finalPath;
}
