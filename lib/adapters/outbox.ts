/**
 * The local outbox (docs/pipeline.md, "Publish"): used when no sFTP host is configured. Files are written under a
 * temporary name in the same directory and renamed, so a reader never sees half a file.
 * @module
 */

/**
 * Writes `content` to `<dir>/<fileName>` atomically (write temp, fsync, rename).
 * @returns the final path
 * @throws whatever the file system throws (permissions, disk full)
 */
export async function writeToOutbox(
  dir: string,
  fileName: string,
  content: string,
): Promise<string> {
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
