// One answer from GitHub shared by every reader of a run: what is read is asked once, and a
// fault is forgotten so the next reader asks again (a passing fault must not stay the answer),
// unless the fault is itself the answer (GitHub's word that the thing is not there).

/** `read()` for `key`, asked once in `kept` and shared; a fault is kept only when `isAnswer`. */
export function askedOnce<K, T>(
  kept: Map<K, Promise<unknown>>,
  key: K,
  read: () => Promise<T>,
  isAnswer: (error: unknown) => boolean = () => false,
): Promise<T> {
  const known = kept.get(key) as Promise<T> | undefined;
  if (known) return known;
  const asking = read();
  kept.set(key, asking);
  asking.catch((error: unknown) => {
    if (kept.get(key) === asking && !isAnswer(error)) kept.delete(key);
  });
  return asking;
}
