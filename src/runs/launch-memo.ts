/**
 * Reads shared by the launches of one batch (the firings of one evaluation of events): what depends
 * only on the template (its credentials, labels, the hosts it would run on) is read once per batch,
 * inside the batch's transaction, as if its launches happened at one instant. A read that fails is
 * not kept, so the next launch tries again.
 */
export class LaunchMemo {
  private readonly reads = new Map<string, Promise<unknown>>();

  once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let value = this.reads.get(key) as Promise<T> | undefined;
    if (!value) {
      value = read();
      this.reads.set(key, value);
      value.catch(() => this.reads.delete(key));
    }
    return value;
  }
}

/** `read()`, through the batch's memo when there is one. */
export const memoized = <T>(memo: LaunchMemo | undefined, key: string, read: () => Promise<T>): Promise<T> => (memo ? memo.once(key, read) : read());
