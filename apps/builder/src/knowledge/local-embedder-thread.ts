import { Worker } from "node:worker_threads";
import { EmbeddingError } from "./embedders.ts";
import type { EmbedReply, EmbedRequest } from "./local-embedder-worker.ts";

/** The heap the thread may use; the local embedder needs a few MB (its n-gram cache included). */
export const DEFAULT_EMBEDDER_THREAD_MEMORY_MB = 64;
/** Below this the thread cannot load its code (and at 1 MB V8 aborts the whole process). */
const MIN_EMBEDDER_THREAD_MEMORY_MB = 16;
/** How long the thread outlives its last call: a burst of uploads keeps one thread (starting one takes ~0.1–0.5 s). */
export const DEFAULT_EMBEDDER_THREAD_IDLE_MS = 5_000;

/**
 * The local embedder on a thread of its own, so that ingestion embeds the next batch while the
 * embedded database (on the main thread) writes the last one.
 */
export interface LocalEmbedderThread {
  /** The texts' local embeddings as pgvector literals, in order. Rejects with a permanent `EmbeddingError`. */
  embed(texts: string[]): Promise<string[]>;
  /** Ends the thread if it runs (pending calls are rejected); the next `embed` starts another. */
  stop(): Promise<void>;
}

type Pending = { resolve: (literals: string[]) => void; reject: (error: Error) => void };

/**
 * A thread started on the first `embed` and ended `idleMs` after the last one answered, or by
 * `stop()`: an idle builder keeps no second JavaScript heap. A thread that throws,
 * runs out of its `memoryMb` or exits rejects the calls waiting on it with the reason, and the next
 * call starts a new one; the service itself never goes down with it.
 *
 * @example const thread = createLocalEmbedderThread(); const [literal] = await thread.embed(["rotate keys"]); await thread.stop();
 */
export function createLocalEmbedderThread(
  options: { memoryMb?: number; idleMs?: number } = {},
): LocalEmbedderThread {
  const memoryMb = Math.max(
    MIN_EMBEDDER_THREAD_MEMORY_MB,
    options.memoryMb ?? DEFAULT_EMBEDDER_THREAD_MEMORY_MB,
  );
  const idleMs = options.idleMs ?? DEFAULT_EMBEDDER_THREAD_IDLE_MS;
  /** The running thread and the calls waiting on it: a thread's end fails its own calls only. */
  let current: { worker: Worker; pending: Map<number, Pending> } | undefined;
  let nextId = 0;
  let idleTimer: NodeJS.Timeout | undefined;

  const fail = (pending: Map<number, Pending>, message: string) => {
    const error = new EmbeddingError(message, false);
    for (const call of pending.values()) call.reject(error);
    pending.clear();
  };

  const stop = async () => {
    clearTimeout(idleTimer);
    const running = current;
    current = undefined;
    if (!running) return;
    fail(running.pending, "The local embedder's thread was stopped.");
    await running.worker.terminate();
  };

  const start = () => {
    const started = new Worker(new URL("./local-embedder-worker.ts", import.meta.url), {
      // A small young generation: 4 MB embeds as fast as V8's default and holds ~15 MB less.
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 4 },
      // Node's own type stripping loads the thread's TypeScript; a loader the service was started
      // with (tsx) would only add to the thread's start.
      execArgv: [],
    });
    const thread = { worker: started, pending: new Map<number, Pending>() };
    const { pending } = thread;
    started.on("message", (reply: EmbedReply) => {
      const call = pending.get(reply.id);
      if (!call) return;
      pending.delete(reply.id);
      if ("error" in reply)
        call.reject(new EmbeddingError(`The local embedder failed: ${reply.error}`, false));
      else call.resolve(reply.literals);
      if (pending.size === 0 && current === thread) {
        // An idle thread is never what keeps the process alive.
        started.unref();
        idleTimer = setTimeout(() => void stop(), idleMs);
        idleTimer.unref();
      }
    });
    // Without an 'error' listener a thread's uncaught exception would be thrown in the service.
    started.on("error", (error: Error & { code?: string }) => {
      if (current === thread) current = undefined;
      fail(
        pending,
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? `The local embedder's thread ran out of memory (its limit is ${memoryMb} MB).`
          : `The local embedder's thread failed: ${error.message}`,
      );
    });
    // A stopped thread's exit comes later, possibly after the next call started another thread:
    // only this thread's calls (none, once stopped) fail with it.
    started.on("exit", (code) => {
      if (current === thread) current = undefined;
      fail(pending, `The local embedder's thread stopped (exit code ${code}).`);
    });
    return thread;
  };

  return {
    embed(texts) {
      clearTimeout(idleTimer);
      current ??= start();
      const { worker, pending } = current;
      worker.ref();
      const id = nextId++;
      const request: EmbedRequest = { id, texts };
      return new Promise<string[]>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage(request);
      });
    },
    stop,
  };
}
