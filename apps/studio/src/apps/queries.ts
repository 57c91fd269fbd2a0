import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { allPages, api, apiWithEtag } from "../api/client.ts";
import { searchPath, usePagedList } from "../api/paged.ts";
import type {
  App,
  AppConversation,
  AppKey,
  AppWithSecret,
  CreateAppRequest,
  CreatedAppKey,
  Message,
  UpdateAppRequest,
} from "../api/schema.gen.ts";
import { useDelete } from "../api/use-delete.ts";

export type { App, AppConversation, AppKey, AppWithSecret, Message } from "../api/schema.gen.ts";
/** What an app publishes: an agent or a workflow. */
export type AppTarget = { kind: "agent"; id: string } | { kind: "workflow"; id: string };
export type Rating = "like" | "dislike";

/** The Apps screen's list, a page at a time. */
export function useAppList(q = "") {
  return usePagedList<App>(["apps", "pages", q], searchPath("/api/apps", q));
}

/** The apps publishing one agent or workflow (the Publish panel's "Open app"). */
export function useAppsOf(target: AppTarget) {
  const filter = `${target.kind === "agent" ? "agent_id" : "workflow_id"}=${encodeURIComponent(target.id)}`;
  return useQuery({
    queryKey: ["apps", "of", target.kind, target.id],
    queryFn: () => allPages<App>(`/api/apps?${filter}`),
    select: (page) => page.data,
  });
}

/** An app with the revision it is (its `ETag`), which a change based on it sends back as `If-Match`. */
export type TaggedApp = App & { etag?: string | undefined };

/** The app as saved now, with its revision. */
export async function fetchApp(id: string): Promise<TaggedApp> {
  const { data, etag } = await apiWithEtag<App>(`/api/apps/${id}`);
  return { ...data, etag: etag ?? undefined };
}

export function useApp(id: string) {
  return useQuery<TaggedApp>({ queryKey: ["apps", id], queryFn: () => fetchApp(id) });
}

/** Creates an app; its answer holds the end-user secret, the only time it is shown. */
export function useCreateApp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: CreateAppRequest) => api<AppWithSecret>("/api/apps", { json: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["apps"] }),
  });
}

export function useUpdateApp(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ body, ifMatch }: { body: UpdateAppRequest; ifMatch: string | undefined }) => {
      const { data, etag } = await apiWithEtag<App>(`/api/apps/${id}`, {
        method: "PATCH",
        json: body,
        ifMatch,
      });
      return { ...data, etag: etag ?? undefined } as TaggedApp;
    },
    onSuccess: (saved) => {
      client.setQueryData(["apps", id], saved);
      void client.invalidateQueries({ queryKey: ["apps", "pages"] });
      void client.invalidateQueries({ queryKey: ["apps", "all"] });
    },
  });
}

/** Deletes an app; the lists drop it (its own query is left alone: the page that showed it moves away). */
export function useDeleteApp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/api/apps/${id}`, { method: "DELETE" }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["apps", "pages"] });
      void client.invalidateQueries({ queryKey: ["apps", "all"] });
    },
  });
}

/** Replaces the end-user secret; the answer holds the new one, shown once. */
export function useRotateSecret(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      const { data, etag } = await apiWithEtag<AppWithSecret>(`/api/apps/${id}/end-user-secret/rotate`, {
        method: "POST",
      });
      return { ...data, etag: etag ?? undefined };
    },
    onSuccess: (rotated) => {
      const { end_user_secret: _secret, ...app } = rotated;
      client.setQueryData(["apps", id], app);
    },
  });
}

export function useAppKeys(appId: string) {
  return usePagedList<AppKey>(["apps", appId, "keys"], `/api/apps/${appId}/keys`);
}

export function useCreateAppKey(appId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<CreatedAppKey>(`/api/apps/${appId}/keys`, { json: { name } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["apps", appId, "keys"] }),
  });
}

export function useRevokeAppKey(appId: string) {
  return useDelete(`/api/apps/${appId}/keys`, ["apps", appId, "keys"]);
}

/** Which of an app's conversations the team is looking at. */
export interface ConversationFilter {
  endUser: string;
  rating: Rating | "all";
}

/**
 * The query string of an app's conversations for a filter (`?end_user=…&rating=…`, or "").
 *
 * @example conversationQuery({ endUser: "user-42", rating: "dislike" }) // "?end_user=user-42&rating=dislike"
 */
export function conversationQuery(filter: ConversationFilter): string {
  const params = new URLSearchParams();
  if (filter.endUser.trim()) params.set("end_user", filter.endUser.trim());
  if (filter.rating !== "all") params.set("rating", filter.rating);
  const query = params.toString();
  return query ? `?${query}` : "";
}

/** An app's conversations with its end users, newest first, filtered by end user and rating. */
export function useAppConversations(appId: string, filter: ConversationFilter) {
  const query = conversationQuery(filter);
  return usePagedList<AppConversation>(
    ["apps", appId, "conversations", query],
    `/api/apps/${appId}/conversations${query}`,
  );
}

/** A conversation's messages with each answer's ratings. */
export function useConversationMessages(conversationId: string) {
  return usePagedList<Message>(
    ["conversation-messages", conversationId],
    `/api/conversations/${conversationId}/messages`,
  );
}
