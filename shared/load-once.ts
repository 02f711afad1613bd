/**
 * `load` (an `import()` of something most cold starts never need) run on the first call and its
 * promise kept: a later `import()` of a loaded module still resolves it again on every call. A
 * failed load is not kept, so the next call tries again. The `import()` stays at the caller, where
 * esbuild sees its literal and makes it a chunk of its own (infra/esbuild-options.ts).
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}
