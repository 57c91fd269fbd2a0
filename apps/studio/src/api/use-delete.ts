import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "./client.ts";

/**
 * Deletes one resource of a collection by id (`DELETE {collection}/{id}`), then reads again every
 * query under `invalidates`, so the list it sat in drops it.
 *
 * @example const remove = useDelete("/api/webhooks", ["webhooks"]); remove.mutate(webhook.id);
 */
export function useDelete(collection: string, invalidates: readonly unknown[]) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`${collection}/${id}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: invalidates }),
  });
}
