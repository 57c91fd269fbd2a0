// Its own file: deps.ts names it, and the worker imports deps.ts.

export interface EvaluationWorkerOptions {
  /** Rows this process runs at once (target calls and their evaluators). */
  concurrency: number;
  /** How long a claimed row is this process's; past it another process takes the row again. */
  leaseMs: number;
  /** The first idle sleep between claims; doubles up to `maxIdleMs`. */
  minIdleMs: number;
  maxIdleMs: number;
  /** How long a publish waits for its gate's evaluation before answering 504 (it goes on). */
  gateTimeoutMs: number;
}
