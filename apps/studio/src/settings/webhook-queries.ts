import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { allPages, api, type Page } from "../api/client.ts";

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

export interface Webhook {
  id: string;
  url: string;
  description: string;
  events: string[];
  status: "enabled" | "disabled";
  previous_secret_expires_at: string | null;
  created_at: string;
  /** Only in the answers to create and rotate-secret. */
  secret?: string;
}

export type DeliveryStatus = "pending" | "retrying" | "delivered" | "failed";

export interface Delivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  replay_count: number;
  created_at: string;
  attempts?: Attempt[];
}

export interface Attempt {
  id: number;
  attempted_at: string;
  url: string;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  success: boolean;
}

export interface WebhookInput {
  url: string;
  events: string[];
  description: string;
}

const isScheduled = (delivery: Delivery) => delivery.status === "pending" || delivery.status === "retrying";
/** How often deliveries are read again while one is still scheduled. */
const DELIVERY_POLL_MS = 2000;

export function useWebhooks() {
  return useQuery({ queryKey: ["webhooks"], queryFn: () => allPages<Webhook>("/api/webhooks") });
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
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/api/webhooks/${id}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["webhooks"] }),
  });
}

export function useDeliveries(webhookId: string, status: DeliveryStatus | "") {
  return useQuery({
    queryKey: ["webhooks", webhookId, "deliveries", status],
    queryFn: () =>
      api<Page<Delivery>>(
        `/api/webhooks/${webhookId}/deliveries?limit=50${status ? `&status=${status}` : ""}`,
      ),
    refetchInterval: (query) => (query.state.data?.data.some(isScheduled) ? DELIVERY_POLL_MS : false),
  });
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
      api<{ replayed: number }>(`/api/webhooks/${webhookId}/deliveries/replay-failed`, { json: { since } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["webhooks", webhookId, "deliveries"] }),
  });
}
