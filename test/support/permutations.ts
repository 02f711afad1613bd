/** Every order of `list`: the serial orders a set of concurrent writes may have taken. */
export function* permutations<T>(list: T[]): Generator<T[]> {
  if (list.length <= 1) yield list;
  else for (const [i, first] of list.entries()) for (const rest of permutations([...list.slice(0, i), ...list.slice(i + 1)])) yield [first, ...rest];
}
