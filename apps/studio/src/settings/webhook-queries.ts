import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client.ts";
import { usePagedList } from "../api/paged.ts";
import type { ReplayFailedDeliveriesResult, Webhook, WebhookDelivery } from "../api/schema.gen.ts";
import { useDelete } from "../api/use-delete.ts";

/** The builder's event types a webhook can subscribe to (apps/builder/src/events/event-types.ts). */
export const EVENT_TYPES = [
  { type: "workflow.run.succeeded", label: "A workflow run succeeded" },
  { type: "workflow.run.failed", label: "A workflow run failed" },
  { type: "document.ready", label: "A document is ready" },
  { type: "document.failed", label: "A document failed" },
  { type: "generation.succeeded", label: "A generation succeeded" },
  { type: "generation.failed", label: "A generation failed" },
  { type: "billing.credits.added", label: "Credits were added" },
] as const;

export type { Webhook, WebhookAttempt as Attempt } from "../api/schema.gen.ts";
/** A delivery; `attempts` only in the answer for one delivery. */
export type Delivery = WebhookDelivery;
export type DeliveryStatus = WebhookDelivery["status"];

export interface WebhookInput {
  url: string;
  events: string[];
  description: string;
}

const isScheduled = (delivery: Delivery) => delivery.status === "pending" || delivery.status === "retrying";
/** How often deliveries are read again while one is still scheduled. */
const DELIVERY_POLL_MS = 2000;

export function useWebhooks() {
  return usePagedList<Webhook>(["webhooks", "pages"], "/api/webhooks");
}

export function useCreateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: WebhookInput) => api<Webhook>("/api/webhooks", { json: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["webhooks"] }),
  });
}

export function useUpdateWebhook() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...change }: Partial<WebhookInput> & { id: string; disabled?: boolean }) =>
      api<Webhook>(`/api/webhooks/${id}`, { method: "PATCH", json: change }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["webhooks"] }),
  });
}

export function useRotateSecret() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<Webhook>(`/api/webhooks/${id}/rotate-secret`, { method: "POST" }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["webhooks"] }),
  });
}

export function useDeleteWebhook() {
  return useDelete("/api/webhooks", ["webhooks"]);
}

export function useDeliveries(webhookId: string, status: DeliveryStatus | "") {
  return usePagedList<Delivery>(
    ["webhooks", webhookId, "deliveries", status],
    `/api/webhooks/${webhookId}/deliveries${status ? `?status=${status}` : ""}`,
    {
      refetchInterval: (data) =>
        data?.pages.some((page) => page.data.some(isScheduled)) ? DELIVERY_POLL_MS : false,
    },
  );
}

export function useDelivery(webhookId: string, deliveryId: string) {
  return useQuery({
    queryKey: ["webhooks", webhookId, "deliveries", "one", deliveryId],
    queryFn: () => api<Delivery>(`/api/webhooks/${webhookId}/deliveries/${deliveryId}`),
    refetchInterval: (query) =>
      query.state.data && isScheduled(query.state.data) ? DELIVERY_POLL_MS : false,
  });
}

export function useReplayDelivery(webhookId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      api<Delivery>(`/api/webhooks/${webhookId}/deliveries/${deliveryId}/replay`, { method: "POST" }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["webhooks", webhookId, "deliveries"] }),
  });
}

export function useReplayFailed(webhookId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (since: string) =>
      api<ReplayFailedDeliveriesResult>(`/api/webhooks/${webhookId}/deliveries/replay-failed`, {
        json: { since },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["webhooks", webhookId, "deliveries"] }),
  });
}
