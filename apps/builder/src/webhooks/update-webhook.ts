import { type EndpointRow, updateEndpoint } from "@app/webhooks";
import type { Deps } from "../deps.ts";
import { eventScope } from "../events/event-types.ts";
import { checkWebhookTarget } from "./check-webhook-url.ts";
import type { UpdateWebhookInput } from "./contract.ts";
import { subscribedTypes } from "./create-webhook.ts";
import { WebhookErrors } from "./errors.ts";

/**
 * Changes an endpoint's URL (checked again), event types, description or disabled flag. Deliveries
 * already scheduled go to the new URL. 404 for an endpoint of another workspace.
 *
 * @example const row = await updateWebhook(deps, "ws_1", "we_…", { disabled: true });
 */
export async function updateWebhook(
  deps: Pick<Deps, "db" | "clock" | "config">,
  workspaceId: string,
  id: string,
  input: UpdateWebhookInput,
): Promise<EndpointRow> {
  const url = input.url === undefined ? undefined : await checkWebhookTarget(deps.config, input.url);
  const row = await updateEndpoint(
    deps,
    { ...eventScope(workspaceId), id },
    {
      ...(url === undefined ? {} : { url }),
      ...(input.events === undefined ? {} : { enabledEvents: subscribedTypes(input.events) }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.disabled === undefined ? {} : { isDisabled: input.disabled }),
    },
  );
  if (!row) throw WebhookErrors.WEBHOOK_NOT_FOUND();
  return row;
}
