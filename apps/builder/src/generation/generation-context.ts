import type { Clock } from "@app/core";
import type { Logger } from "@app/http";
import type { BuilderConfig } from "../config.ts";
import type { BuilderDb } from "../db/index.ts";
import type { DeliveryNotifier } from "../events/emit-event.ts";
import type { FetchFunction } from "../outbound/outbound-fetch.ts";
import type { Storage } from "../storage/storage.ts";
import type { ReplicateAccess } from "./replicate-access.ts";
import type { TtlCache } from "./ttl-cache.ts";

/** Timings and limits of generation; tests shorten the polling ones. */
export interface GenerationSettings {
  /** First delay between polls of an unfinished prediction; doubled per poll up to `maxPollMs`. */
  pollBaseMs: number;
  maxPollMs: number;
  /** With a webhook, polling is a fallback for a lost delivery and starts this late. */
  webhookFallbackMs: number;
  /** How long a worker's claim on a generation lasts. */
  leaseMs: number;
  /** Longest sleep of the worker when nothing is due. */
  maxIdleMs: number;
  /** Largest output file copied into storage. */
  maxOutputBytes: number;
  /** Most output files copied from one prediction. */
  maxOutputs: number;
  /** Longest time one output download may take. */
  downloadTimeoutMs: number;
  /** How long model input schemas, model lists and Replicate clients are cached. */
  cacheTtlMs: number;
}

export const DEFAULT_GENERATION_SETTINGS: GenerationSettings = {
  pollBaseMs: 1_000,
  maxPollMs: 30_000,
  webhookFallbackMs: 5 * 60_000,
  leaseMs: 60_000,
  maxIdleMs: 1_000,
  maxOutputBytes: 512 * 1024 * 1024,
  maxOutputs: 16,
  downloadTimeoutMs: 10 * 60_000,
  cacheTtlMs: 10 * 60_000,
};

/** What the generation use-cases are given. */
export interface GenerationContext {
  db: BuilderDb;
  clock: Clock;
  logger: Logger;
  config: BuilderConfig;
  storage: Storage;
  replicate: ReplicateAccess;
  settings: GenerationSettings;
  /** The fetch used for output URLs (the outbound-URL policy applies: they come from a third party). */
  fetchOutput: FetchFunction;
  /**
   * Model input schemas by token and model reference (a private model's schema is only for its
   * account); `null` when the model publishes none.
   */
  schemas: TtlCache<InputSchema | null>;
  /** Woken after a `generation.*` event is committed. */
  deliveries?: DeliveryNotifier | undefined;
}

export type InputSchema = { input: Record<string, unknown>; components: Record<string, unknown> };
