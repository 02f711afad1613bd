/**
 * Runs `task` over `inputs` with at most `concurrency` in flight; results keep input order.
 * Inputs are started in order, and none is started once `keepStarting` says no, so the results
 * cover exactly a prefix of `inputs`: the ones started, each run to its end.
 */
export async function mapPool<T, R>(
  inputs: ReadonlyArray<T>,
  concurrency: number,
  task: (input: T, index: number) => Promise<R>,
  keepStarting: () => boolean = () => true,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = [];
  let nextIndex = 0;
  const worker = async () => {
    while (nextIndex < inputs.length && keepStarting()) {
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
