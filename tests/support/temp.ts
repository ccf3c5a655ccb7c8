/**
 * Temporary directories and KV stores for tests: created fresh, removed when the test is done,
 * whether it passed or threw.
 * @module
 */

/** A temporary directory that removes itself (with everything in it) when disposed. */
export interface TempDir extends AsyncDisposable {
  /** Absolute path of the directory. */
  path: string;
  /** Removes the directory and its contents; a second call does nothing. */
  remove(): Promise<void>;
}

/**
 * Creates a fresh temporary directory: `await using dir = await tempDir("bridge-x-")` removes it
 * at the end of the scope, or call `dir.remove()` where the scope does not fit.
 * @param prefix start of the directory's name (see `Deno.makeTempDir`)
 */
export async function tempDir(prefix?: string): Promise<TempDir> {
  const path = await Deno.makeTempDir(prefix === undefined ? {} : { prefix });
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    await Deno.remove(path, { recursive: true });
  };
  return { path, remove, [Symbol.asyncDispose]: remove };
}

/**
 * Runs `fn` with a fresh temporary directory and removes it afterwards.
 * @param prefix start of the directory's name
 */
export async function withTempDir<T>(
  fn: (dir: string) => Promise<T>,
  prefix?: string,
): Promise<T> {
  await using dir = await tempDir(prefix);
  return await fn(dir.path);
}

/**
 * Runs `fn` with a fresh temporary directory and removes it afterwards; for a test that does its
 * file work synchronously.
 * @param prefix start of the directory's name
 */
export function withTempDirSync<T>(fn: (dir: string) => T, prefix?: string): T {
  const dir = Deno.makeTempDirSync(prefix === undefined ? {} : { prefix });
  try {
    return fn(dir);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

/**
 * Runs `fn` with a fresh, empty Deno KV store on a SQLite file in a temporary directory; closes
 * the store and removes the directory afterwards.
 */
export async function withKv<T>(fn: (kv: Deno.Kv) => Promise<T>): Promise<T> {
  return await withTempDir(async (dir) => {
    const kv = await Deno.openKv(`${dir}/t.kv`);
    try {
      return await fn(kv);
    } finally {
      kv.close();
    }
  });
}

/** Runs `fn` with a fresh, empty in-memory Deno KV store (`:memory:`) and closes it afterwards. */
export async function withMemoryKv<T>(fn: (kv: Deno.Kv) => Promise<T>): Promise<T> {
  const kv = await Deno.openKv(":memory:");
  try {
    return await fn(kv);
  } finally {
    kv.close();
  }
}
