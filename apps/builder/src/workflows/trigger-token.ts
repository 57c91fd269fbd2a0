import { createHmac } from "node:crypto";
import { constantTimeEqual } from "@app/core";

const TOKEN_PREFIX = "wft";

/**
 * A workflow's inbound trigger token: its id and an HMAC of (id, version) under the master key. Nothing
 * secret is stored, the owner can be shown the URL at any time, and bumping the version rotates it.
 *
 * @example triggerToken(secretKey, "wf_01abc", 1) // "wft_01abc_Zm9v…"
 */
export function triggerToken(secretKey: string, workflowId: string, version: number): string {
  return `${TOKEN_PREFIX}_${workflowId.replace(/^wf_/, "")}_${signature(secretKey, workflowId, version)}`;
}

/** The workflow id a token claims to open, or undefined when it is malformed. */
export function workflowIdOfToken(token: string): string | undefined {
  const match = /^wft_([0-9a-z]{26})_[A-Za-z0-9_-]{43}$/.exec(token);
  return match ? `wf_${match[1]}` : undefined;
}

/** Whether the token is the current one of the workflow (constant-time). */
export function isTriggerTokenValid(
  secretKey: string,
  token: string,
  workflowId: string,
  version: number,
): boolean {
  return constantTimeEqual(token, triggerToken(secretKey, workflowId, version));
}

function signature(secretKey: string, workflowId: string, version: number): string {
  return createHmac("sha256", secretKey)
    .update(`workflow-trigger:${workflowId}:${version}`)
    .digest("base64url");
}
