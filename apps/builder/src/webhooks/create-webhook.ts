import { countEndpoints, createEndpoint, type EndpointRow } from "@app/webhooks";
import type { Deps } from "../deps.ts";
import { eventScope } from "../events/event-types.ts";
import { checkWebhookTarget } from "./check-webhook-url.ts";
import { type CreateWebhookInput, MAX_WEBHOOKS_PER_WORKSPACE } from "./contract.ts";
import { WebhookErrors } from "./errors.ts";

/**
 * Registers a workspace's endpoint for some event types and answers it with its signing secret,
 * which is shown this once. The URL is checked (SSRF) and the workspace's endpoints are capped.
 *
 * @example const { row, secret } = await createWebhook(deps, "ws_1", { url: "https://example.com/hooks", events: ["*"] });
 */
export async function createWebhook(
  deps: Pick<Deps, "db" | "clock" | "config">,
  workspaceId: string,
  input: CreateWebhookInput,
): Promise<{ row: EndpointRow; secret: string }> {
  const url = await checkWebhookTarget(deps.config, input.url);
  const scope = eventScope(workspaceId);
  // A soft cap (two concurrent requests may both pass): it bounds the fan-out of each event.
  if ((await countEndpoints(deps.db, scope)) >= MAX_WEBHOOKS_PER_WORKSPACE)
    throw WebhookErrors.WEBHOOK_LIMIT_REACHED();
  return createEndpoint(deps, {
    ...scope,
    url,
    enabledEvents: subscribedTypes(input.events),
    ...(input.description === undefined ? {} : { description: input.description }),
  });
}

/**
 * The stored subscription: each type once, and just `*` when it is among them.
 *
 * @example subscribedTypes(["document.ready", "*"]) // ["*"]
 */
export function subscribedTypes(events: readonly string[]): string[] {
  if (events.includes("*")) return ["*"];
  return [...new Set(events)];
}
