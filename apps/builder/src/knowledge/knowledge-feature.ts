import type { Deps } from "../deps.ts";
import { builderStorage } from "../storage/open-storage.ts";
import { createIngestionWorker, type IngestionWorker } from "./ingestion-worker.ts";
import { createProgressEvents } from "./progress-events.ts";
import { knowledgeRoutes } from "./routes.ts";

/**
 * Knowledge bases as the app mounts them: the routes (under /api) and the ingestion worker that
 * `start()` runs, sharing one storage and one in-process progress channel.
 *
 * @example const knowledge = createKnowledgeFeature(deps); app.route("/api", knowledge.routes); await knowledge.worker.start();
 */
export function createKnowledgeFeature(deps: Deps): {
  routes: ReturnType<typeof knowledgeRoutes>;
  worker: IngestionWorker;
} {
  const storage = builderStorage(deps);
  const events = createProgressEvents();
  const worker = createIngestionWorker({ ...deps, storage, events }, deps.ingestion);
  return { routes: knowledgeRoutes(deps, { storage, worker, events }), worker };
}
