import { NodeExecutionError } from "./node-error.ts";

/**
 * How a run tells its running nodes to stop. A plain set of callbacks rather than an AbortSignal per
 * run: EventTarget listeners cost microseconds per node, which is most of the engine's overhead budget.
 */
export interface RunStop {
  /** Set once the run is stopping; nodes started afterwards fail at once with it. */
  reason: unknown;
  hooks: Set<(reason: unknown) => void>;
}

/**
 * Runs `work` with its own AbortSignal that fires when the run stops or after `timeoutMs`, and settles as
 * soon as that happens, so an executor that ignores its signal cannot hold the run.
 *
 * @example await withNodeLimits((signal) => fetch(url, { signal }), run.stop, 30_000, "http_1");
 */
export function withNodeLimits<T>(
  work: (signal: AbortSignal) => Promise<T>,
  run: RunStop,
  timeoutMs: number,
  nodeId: string,
): Promise<T> {
  if (run.reason !== undefined) return Promise.reject(run.reason);
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const stop = (reason: unknown) => {
      cleanup();
      controller.abort(reason);
      reject(reason);
    };
    const timer = setTimeout(() => {
      stop(new NodeExecutionError("node_timeout", `Node ${nodeId} did not finish within ${timeoutMs} ms.`));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      run.hooks.delete(stop);
    };
    run.hooks.add(stop);
    let pending: Promise<T>;
    try {
      pending = work(controller.signal);
    } catch (error) {
      cleanup();
      reject(error);
      return;
    }
    pending.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (error: unknown) => {
        cleanup();
        reject(error);
      },
    );
  });
}
