/** Runs `task` over `inputs` with at most `concurrency` in flight; results keep input order. */
export async function mapPool<T, R>(inputs: ReadonlyArray<T>, concurrency: number, task: (input: T, index: number) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = new Array(inputs.length);
  let nextIndex = 0;
  const worker = async () => {
    while (nextIndex < inputs.length) {
      const index = nextIndex++;
      try {
        results[index] = { status: 'fulfilled', value: await task(inputs[index], index) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, inputs.length) }, worker));
  return results;
}
