import { newId } from "@app/core";
import { eq } from "drizzle-orm";
import { claimGeneration } from "./claim-generation.ts";
import type { GenerationContext } from "./generation-context.ts";
import { pollGeneration } from "./poll-generation.ts";
import { generations } from "./schema.ts";

const MIN_IDLE_MS = 20;

export interface GenerationWorker {
  start(): Promise<void>;
  /** Stops polling and gives back this process's claims, so a restart resumes them at once. */
  stop(): Promise<void>;
}

/**
 * The durable poller of unfinished generations inside the builder process. Its queue is the
 * generations table, so a generation started before a restart is finished after it; with
 * webhooks it only catches deliveries that never arrived.
 *
 * @example const worker = createGenerationWorker(context); await worker.start();
 */
export function createGenerationWorker(context: GenerationContext): GenerationWorker {
  const owner = newId("wrk");
  const lease = { owner, leaseMs: context.settings.leaseMs };
  let isRunning = false;
  let loop: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let wakeUp: (() => void) | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      wakeUp = () => {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      };
      timer = setTimeout(wakeUp, ms);
    });

  const run = async () => {
    let idleMs = MIN_IDLE_MS;
    while (isRunning) {
      try {
        const generation = await claimGeneration(context, lease);
        if (generation) {
          idleMs = MIN_IDLE_MS;
          await pollGeneration(context, generation, owner);
          continue;
        }
      } catch (error) {
        if (!isRunning) break;
        context.logger.error({ err: error }, "generation polling failed");
      }
      await sleep(idleMs);
      idleMs = Math.min(context.settings.maxIdleMs, idleMs * 2);
    }
  };

  return {
    async start() {
      // Runs without a server-wide token too: workspaces' own Replicate credentials start generations.
      if (isRunning) return;
      isRunning = true;
      loop = run();
    },
    async stop() {
      if (!isRunning) return;
      isRunning = false;
      wakeUp?.();
      await loop;
      await context.db
        .update(generations)
        .set({ leaseOwner: null, leaseExpiresAt: null })
        .where(eq(generations.leaseOwner, owner))
        .catch(() => undefined);
    },
  };
}
