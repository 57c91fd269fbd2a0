export { poolSamples } from "./database.ts";
export {
  agentTurnsTotal,
  createServiceMetrics,
  creditsSpentTotal,
  modelTokensTotal,
  type Sample,
  type ServiceMetrics,
  workflowRunsTotal,
} from "./metrics.ts";
