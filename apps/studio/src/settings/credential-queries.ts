import { useQuery } from "@tanstack/react-query";
import { allPages } from "../api/client.ts";
import { usePagedList } from "../api/paged.ts";
import type { Credential } from "../api/schema.gen.ts";

export type { Credential } from "../api/schema.gen.ts";

/** A secret for HTTP nodes rather than a provider key (docs/agents.md). */
export const HTTP_SECRET = "http";
/** A Replicate API token, for image and video generation (docs/generation.md). */
export const REPLICATE = "replicate";

/** The workspace's stored credentials (masked), for the settings list and the HTTP node's auth picker. */
export function useCredentials() {
  return useQuery({
    queryKey: ["credentials"],
    queryFn: () => allPages<Credential>("/api/credentials"),
  });
}

/** The settings screen's list of credentials, a page at a time. */
export function useCredentialList() {
  return usePagedList<Credential>(["credentials", "pages"], "/api/credentials");
}
