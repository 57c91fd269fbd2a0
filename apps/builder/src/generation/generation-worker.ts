import { newId, pollLoop } from "@app/core";
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
  let isStarted = false;
  const loop = pollLoop({
    work: async () => {
      const generation = await claimGeneration(context, lease);
      if (!generation) return "idle";
      await pollGeneration(context, generation, owner);
      return "busy";
    },
    minIdleMs: MIN_IDLE_MS,
    maxIdleMs: context.settings.maxIdleMs,
    onError: (error) => context.logger.error({ err: error }, "generation polling failed"),
  });

  return {
    async start() {
      // Runs without a server-wide token too: workspaces' own Replicate credentials start generations.
      isStarted = true;
      loop.start();
    },
    async stop() {
      if (!isStarted) return;
      isStarted = false;
      await loop.stop();
      await context.db
        .update(generations)
        .set({ leaseOwner: null, leaseExpiresAt: null })
        .where(eq(generations.leaseOwner, owner))
        .catch(() => undefined);
    },
  };
}
