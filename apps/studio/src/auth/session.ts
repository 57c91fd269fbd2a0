import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client.ts";
import type { AuthResult, TwoFactorChallenge } from "../api/schema.gen.ts";
import type { Answer, Session } from "../api/types.ts";

export const sessionKey = ["session"] as const;

/** The signed-in user, or null; kept across reloads by the session cookie. */
export function useSession() {
  return useQuery({
    queryKey: sessionKey,
    queryFn: () => api<Session | null>("/api/auth/get-session"),
    staleTime: 60_000,
  });
}

export function useSignIn() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; password: string }) =>
      api<AuthResult | TwoFactorChallenge>("/api/auth/sign-in/email", { json: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: sessionKey }),
  });
}

export function useSignUp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { email: string; password: string; name: string }) =>
      api<AuthResult>("/api/auth/sign-up/email", { json: input }),
    onSuccess: () => client.invalidateQueries({ queryKey: sessionKey }),
  });
}

export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => api<Answer<"POST /api/auth/sign-out">>("/api/auth/sign-out", { method: "POST" }),
    onSuccess: () => {
      client.clear();
      client.setQueryData(sessionKey, null);
    },
  });
}

/** The second step of a sign-in with two-factor on: a code from the app, or a backup code. */
export function useVerifySecondFactor() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { code: string; isBackupCode: boolean }) =>
      api<AuthResult>(`/api/auth/two-factor/${input.isBackupCode ? "verify-backup-code" : "verify-totp"}`, {
        json: { code: input.code },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: sessionKey }),
  });
}
