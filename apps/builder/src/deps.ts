import type { Clock } from "@app/core";
import type { Logger } from "@app/http";
import type { Sandbox } from "@app/sandbox";
import type { BuilderConfig } from "./config.ts";
import type { BuilderDb } from "./db/index.ts";
import type { EvaluationWorkerOptions } from "./evaluations/worker-options.ts";
import type { EventDeliverySettings } from "./events/delivery-settings.ts";
import type { DeliveryNotifier } from "./events/emit-event.ts";
import type { GenerationSettings } from "./generation/generation-context.ts";
import type { IngestionWorkerOptions } from "./knowledge/ingestion-worker.ts";
import type { McpSettings } from "./mcp/mcp-settings.ts";
import type { AgentToolPorts } from "./ports/tool-ports.ts";
import type { AiSettings } from "./providers/settings.ts";
import type { Storage } from "./storage/storage.ts";
import type { PublishGate } from "./versions/evaluation-gate.ts";
import type { WorkflowCapabilities } from "./workflows/capabilities.ts";

/** What use-cases and routes are given; tests build the same object with their own clock and database. */
export interface Deps {
  db: BuilderDb;
  clock: Clock;
  logger: Logger;
  config: BuilderConfig;
  /** Time and step limits of provider calls. */
  ai: AiSettings;
  /** What agent tools reach in other features; an absent port makes its tools answer "unavailable". */
  agentTools: AgentToolPorts;
  /** What workflow nodes use from other features (sandbox, models, knowledge). */
  workflowCapabilities?: WorkflowCapabilities;
  /** The one code sandbox (packages/sandbox); absent, the sandbox routes answer 503. */
  sandbox?: Sandbox;
  /** Where files are kept; absent, the store `config.storage` names (local disk or S3). */
  storage?: Storage;
  /** Polling, size and cache limits of generation; absent, the defaults. */
  generation?: Partial<GenerationSettings>;
  /** Timeouts and limits of MCP client connections; absent, the defaults. */
  mcp?: Partial<McpSettings>;
  /** Leases, retries and the local embedder's thread of the ingestion worker; absent, the defaults. */
  ingestion?: Partial<IngestionWorkerOptions>;
  /** Concurrency, lease and polling of the evaluation worker; absent, the defaults. */
  evaluations?: Partial<EvaluationWorkerOptions>;
  /** Whether and how this process delivers webhooks; absent, the defaults (inline). */
  eventDelivery?: Partial<EventDeliverySettings>;
  /**
   * Whether this is the only process on its database (the embedded one lives inside it): work it
   * finds "running" at start-up was then cut off by its own last stop, and is closed at once
   * instead of after the heartbeat timeout.
   */
  isSoleProcess?: boolean;
  /**
   * Told when the agents or workflows a workspace serves over MCP may have changed, so open MCP
   * sessions get a list-changed notification; set by `createBuilderApp`.
   */
  mcpExposure?: { changed(workspaceId: string): void };
  /** Runs the evaluation gate of a publish; set by `createBuilderApp` (absent: gates cannot be set). */
  publishGate?: PublishGate;
  /** Wakes the webhook delivery engine after events are committed; set by `createBuilderApp`. */
  deliveries?: DeliveryNotifier;
}
