import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client.ts";
import type { Invitation, Member, ReceivedInvitation, Workspace } from "../api/schema.gen.ts";
import { sessionKey } from "../auth/session.ts";

type List<T> = { data: T[] };

export const workspacesKey = ["workspaces"] as const;

/** The workspaces the signed-in person belongs to, with their role in each. */
export function useWorkspaces() {
  return useQuery({
    queryKey: workspacesKey,
    queryFn: () => api<List<Workspace>>("/api/workspaces"),
    staleTime: 30_000,
  });
}

/** The workspace the studio works in (the session's active one) with the person's role there. */
export function useCurrentWorkspace() {
  return useQuery({
    queryKey: [...workspacesKey, "current"],
    queryFn: () => api<Workspace>("/api/workspaces/current"),
    staleTime: 30_000,
  });
}

const RANK = { owner: 4, admin: 3, editor: 2, viewer: 1 } as const;
export type Role = keyof typeof RANK;

/**
 * Whether the person's role in the current workspace reaches `role`: the studio hides what the API
 * would refuse (it still refuses). Unknown while loading: nothing is shown until it is known.
 */
export function useHasRole(role: Role): boolean {
  const current = useCurrentWorkspace();
  const mine = current.data?.role;
  return mine !== undefined && RANK[mine] >= RANK[role];
}

/** Editors and above build; viewers only read. */
export function useCanEdit(): boolean {
  return useHasRole("editor");
}

/**
 * Switches the session to another workspace; every cached answer belonged to the old one, so all
 * are dropped and the ones on display fetched again (the session itself is kept).
 */
export function useSwitchWorkspace() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<Workspace>(`/api/workspaces/${id}/activate`, { method: "POST" }),
    onSuccess: async (workspace) => {
      // The new role at once (the screens stay mounted); the rest is dropped and, where on display,
      // fetched again: reset, not clear, so the screens keep observing their queries.
      client.setQueryData([...workspacesKey, "current"], workspace);
      void client.invalidateQueries({ queryKey: workspacesKey, exact: true });
      await client.resetQueries({
        predicate: (query) => query.queryKey[0] !== sessionKey[0] && query.queryKey[0] !== workspacesKey[0],
      });
    },
  });
}

export function useCreateWorkspace() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api<Workspace>("/api/workspaces", { json: { name } }),
    onSuccess: () => client.invalidateQueries({ queryKey: workspacesKey }),
  });
}

export function useMembers() {
  return useQuery({ queryKey: ["members"], queryFn: () => api<List<Member>>("/api/members") });
}

export function useInvitations(isEnabled: boolean) {
  return useQuery({
    queryKey: ["invitations"],
    queryFn: () => api<List<Invitation>>("/api/invitations?limit=100"),
    enabled: isEnabled,
  });
}

export function useReceivedInvitation(id: string) {
  return useQuery({
    queryKey: ["invitation", id],
    queryFn: () => api<ReceivedInvitation>(`/api/invitations/${encodeURIComponent(id)}`),
    retry: false,
  });
}
