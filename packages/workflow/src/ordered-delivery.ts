/**
 * Delivers calls one after another in the order they were queued, even when they are async, so a
 * recorder sees `node_started` before `node_finished` although branches run concurrently. While nothing
 * is pending a call runs at once (a synchronous recorder costs no promise); once a call returns a
 * promise, later calls wait for it. After the first failure nothing more is delivered and `onFailure`
 * is told once.
 *
 * @example const delivery = orderedDelivery(abortRun); delivery.push(() => recorder.onRunStarted?.(event)); await delivery.drained();
 */
export function orderedDelivery(onFailure: (error: unknown) => void): {
  push(call: () => void | Promise<void>): void;
  drained(): Promise<void>;
  failure(): { error: unknown } | undefined;
} {
  let tail: Promise<void> | undefined;
  let failed: { error: unknown } | undefined;
  const fail = (error: unknown) => {
    if (failed !== undefined) return;
    failed = { error };
    onFailure(error);
  };
  const deliver = async (call: () => void | Promise<void>) => {
    if (failed !== undefined) return;
    try {
      await call();
    } catch (error) {
      fail(error);
    }
  };
  const follow = (next: Promise<void>) => {
    tail = next;
    next.then(() => {
      if (tail === next) tail = undefined;
    });
  };
  return {
    push(call) {
      if (failed !== undefined) return;
      if (tail !== undefined) {
        follow(tail.then(() => deliver(call)));
        return;
      }
      try {
        const result = call();
        if (result instanceof Promise) follow(result.then(undefined, fail));
      } catch (error) {
        fail(error);
      }
    },
    drained: () => tail ?? Promise.resolve(),
    failure: () => failed,
  };
}
