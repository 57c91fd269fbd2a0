import { type ProcessLimits, RESULT_LIMIT_BYTES } from "./limits.ts";
import { stalledSoFar } from "./loop-stalls.ts";
import type { ProcessOutcome, SandboxedProcess } from "./sandboxed-process.ts";

interface Execution {
  stdout: Buffer[];
  stderr: Buffer[];
  result: Buffer[];
  outputBytes: number;
  resultBytes: number;
  isTimedOut: boolean;
  isOutputTruncated: boolean;
  isResultTooLarge: boolean;
  finish(status: number | null): void;
}

const HEADER_BYTES = 5;
/** The zygote's own CPU time grows a little with every fork; past this many it is replaced. */
const MAX_EXECUTIONS = 1000;
/**
 * RLIMIT_CPU counts a whole process: a JavaScript process that has spent this much on a run's earlier
 * nodes is replaced, and its limit has this much on top of a node's, so every node gets its full CPU
 * time (`RESIDENT_CPU_HEADROOM_SECONDS` in limits.ts).
 */
const RECYCLE_AFTER_CPU_SECONDS = 2;

/**
 * A sandboxed process that executes several requests in turn: Python's zygote (a fresh forked
 * process per request, see runners/zygote.py) or Node.js in session mode (a fresh V8 context per
 * request, runners/runner.cjs). Each request gets its own wall-clock timer, output and result limits;
 * anything that stops a request early (timeout, output overflow, a crash) kills the whole process,
 * which is then never used again.
 *
 * @example const runner = new ResidentRunner(process, limits); const outcome = await runner.execute(json, 10_000);
 */
export class ResidentRunner {
  readonly #process: SandboxedProcess;
  readonly #limits: ProcessLimits;
  #pending: Buffer = Buffer.alloc(0);
  #current: Execution | undefined;
  #isBroken = false;
  #executions = 0;
  #cpuSeconds = 0;

  constructor(process: SandboxedProcess, limits: ProcessLimits) {
    this.#process = process;
    this.#limits = limits;
    process.attach({
      stdout: (chunk) => this.#output(chunk, "stdout"),
      stderr: (chunk) => this.#output(chunk, "stderr"),
      result: (chunk) => this.#frames(chunk),
    });
    void process.closed.then(() => {
      this.#isBroken = true;
      this.#current?.finish(null);
    });
  }

  /** Alive, idle and fit for another request. */
  get isUsable(): boolean {
    return (
      !this.#isBroken &&
      !this.#process.hasExited &&
      this.#current === undefined &&
      this.#executions < MAX_EXECUTIONS &&
      this.#cpuSeconds < RECYCLE_AFTER_CPU_SECONDS
    );
  }

  get closed(): Promise<number | null> {
    return this.#process.closed;
  }

  /**
   * Sends one request and resolves with its outcome, in the terms of a one-shot process (exit code,
   * output, result, which limit stopped it). The wall clock starts when the request is sent.
   */
  async execute(request: string, wallMs: number, signal?: AbortSignal): Promise<ProcessOutcome> {
    if (!this.isUsable) throw new Error("the resident runner is busy or gone");
    this.#executions++;
    const isStarted = await this.#process.whenStarted();
    const oomKillsBefore = this.#process.oomKills();
    const started = performance.now();
    const execution: Execution = {
      stdout: [],
      stderr: [],
      result: [],
      outputBytes: 0,
      resultBytes: 0,
      isTimedOut: false,
      isOutputTruncated: false,
      isResultTooLarge: false,
      finish: () => {},
    };
    const status = new Promise<number | null>((resolve) => {
      execution.finish = resolve;
    });
    this.#current = execution;
    let stalledUntilNow = stalledSoFar();
    const onDeadline = () => {
      // As in SandboxedProcess.run: time this service's event loop was stalled is given back.
      const owed = stalledSoFar() - stalledUntilNow;
      if (owed > 0) {
        stalledUntilNow += owed;
        timer = setTimeout(onDeadline, owed);
        return;
      }
      execution.isTimedOut = true;
      this.kill();
    };
    let timer = setTimeout(onDeadline, wallMs);
    const onAbort = () => this.kill();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) this.kill();
    if (!isStarted) execution.finish(null);
    else this.#process.send(`${Buffer.byteLength(request)}\n${request}`);
    let code = await status;
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    this.#current = undefined;
    const isStopped = execution.isTimedOut || execution.isOutputTruncated || execution.isResultTooLarge;
    if (code === null && !isStopped && this.#process.hasExited) code = await this.#process.closed;
    return {
      exitCode: isStopped ? null : code,
      stdout: Buffer.concat(execution.stdout).toString("utf8"),
      stderr: Buffer.concat(execution.stderr).toString("utf8"),
      result:
        execution.isResultTooLarge || execution.resultBytes === 0 ? null : Buffer.concat(execution.result),
      isTimedOut: execution.isTimedOut,
      isOutputTruncated: execution.isOutputTruncated,
      isResultTooLarge: execution.isResultTooLarge,
      isOomKilled: this.#process.oomKills() > oomKillsBefore,
      durationMs: Math.round((performance.now() - started) * 100) / 100,
    };
  }

  /** SIGKILL to the whole sandbox; it is never used again. */
  kill(): void {
    this.#isBroken = true;
    this.#process.kill();
  }

  #output(chunk: Buffer, stream: "stdout" | "stderr"): void {
    const execution = this.#current;
    // Between requests nothing of the sandbox should speak; whatever does is not any request's output.
    if (!execution || execution.isOutputTruncated) return;
    const room = this.#limits.outputBytes - execution.outputBytes;
    if (chunk.length > room) {
      execution[stream].push(chunk.subarray(0, room));
      execution.outputBytes += room;
      execution.isOutputTruncated = true;
      this.kill();
      return;
    }
    execution[stream].push(chunk);
    execution.outputBytes += chunk.length;
  }

  #frames(chunk: Buffer): void {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    while (this.#pending.length >= HEADER_BYTES) {
      const kind = String.fromCharCode(this.#pending[0] ?? 0);
      const length = this.#pending.readUInt32BE(1);
      const execution = this.#current;
      // A frame past its limit is judged by its header, so the host never buffers more than the limit.
      const isOutput = kind === "o" || kind === "e";
      const room = isOutput
        ? this.#limits.outputBytes - (execution?.outputBytes ?? 0)
        : RESULT_LIMIT_BYTES - (execution?.resultBytes ?? 0);
      if (execution && (isOutput || kind === "r") && length > room) {
        if (isOutput) {
          // What has arrived of it, up to the limit, as a stream overflowing byte by byte would show.
          const arrived = Buffer.from(this.#pending.subarray(HEADER_BYTES, HEADER_BYTES + Math.max(0, room)));
          execution[kind === "o" ? "stdout" : "stderr"].push(arrived);
          execution.outputBytes += arrived.length;
          execution.isOutputTruncated = true;
        } else {
          execution.isResultTooLarge = true;
          execution.result.length = 0;
        }
        this.#pending = Buffer.alloc(0);
        this.kill();
        return;
      }
      if (!isOutput && length > RESULT_LIMIT_BYTES + HEADER_BYTES) {
        this.#protocolError();
        return;
      }
      if (this.#pending.length < HEADER_BYTES + length) return;
      const payload = this.#pending.subarray(HEADER_BYTES, HEADER_BYTES + length);
      this.#pending = this.#pending.subarray(HEADER_BYTES + length);
      this.#frame(kind, payload);
    }
  }

  #frame(kind: string, payload: Buffer): void {
    const execution = this.#current;
    if (!execution) {
      this.#protocolError();
      return;
    }
    if (kind === "o") this.#output(payload, "stdout");
    else if (kind === "e") this.#output(payload, "stderr");
    else if (kind === "r") {
      if (execution.isResultTooLarge) return;
      execution.resultBytes += payload.length;
      if (execution.resultBytes > RESULT_LIMIT_BYTES) {
        execution.isResultTooLarge = true;
        execution.result.length = 0;
        this.kill();
        return;
      }
      execution.result.push(Buffer.from(payload));
    } else if (kind === "x") {
      let status: unknown;
      try {
        const done = JSON.parse(payload.toString("utf8")) as { status?: unknown; cpu?: unknown };
        status = done.status;
        if (typeof done.cpu === "number") this.#cpuSeconds = done.cpu;
      } catch {
        status = undefined;
      }
      if (typeof status !== "number") {
        this.#protocolError();
        return;
      }
      execution.finish(status);
    } else this.#protocolError();
  }

  /** Bytes that are not frames: the process is out of step with the host and is stopped. */
  #protocolError(): void {
    this.kill();
    this.#current?.finish(null);
  }
}
