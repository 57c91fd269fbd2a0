import { createHmac, hkdfSync } from "node:crypto";
import { constantTimeEqual } from "@app/core";

/** How long a signed link to a stored file works: long enough to show and download a run's outputs. */
export const SIGNED_FILE_URL_TTL_MS = 24 * 3_600_000;

const keys = new Map<string, Buffer>();

function signingKey(masterSecret: string): Buffer {
  let key = keys.get(masterSecret);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", masterSecret, "builder", "files/signed-urls/v1", 32));
    keys.set(masterSecret, key);
  }
  return key;
}

function signature(masterSecret: string, fileId: string, expires: number): string {
  return createHmac("sha256", signingKey(masterSecret)).update(`${fileId}.${expires}`).digest("base64url");
}

/**
 * A link to a stored file that works without signing in until it expires: for people who are not
 * members of the workspace, such as an app's end users looking at a run's generated image.
 *
 * @example signedFileUrl({ publicUrl, secretKey }, "file_01…", clock.now()) // "https://…/api/public/files/file_01…?expires=…&signature=…"
 */
export function signedFileUrl(
  config: { publicUrl: string; secretKey: string },
  fileId: string,
  now: Date,
): string {
  const expires = Math.floor((now.getTime() + SIGNED_FILE_URL_TTL_MS) / 1000);
  const query = `expires=${expires}&signature=${signature(config.secretKey, fileId, expires)}`;
  return `${config.publicUrl}/api/public/files/${encodeURIComponent(fileId)}?${query}`;
}

/**
 * Whether a signed link's parameters are genuine and unexpired.
 *
 * @example isSignedFileUrlValid(secretKey, id, { expires: "1764…", signature: "…" }, clock.now())
 */
export function isSignedFileUrlValid(
  masterSecret: string,
  fileId: string,
  query: { expires: number; signature: string },
  now: Date,
): boolean {
  if (query.expires * 1000 <= now.getTime()) return false;
  return constantTimeEqual(query.signature, signature(masterSecret, fileId, query.expires));
}

/**
 * Replaces every link to a stored file (`<PUBLIC_URL>/api/files/{id}`) in a JSON value with a signed one.
 *
 * @example const shown = withSignedFileUrls(config, run.outputs, clock.now());
 */
export function withSignedFileUrls<T>(
  config: { publicUrl: string; secretKey: string },
  value: T,
  now: Date,
): T {
  const prefix = `${config.publicUrl}/api/files/`;
  const pattern = new RegExp(`${escapeRegExp(prefix)}([a-z][a-z0-9]{0,15}_[0-9a-hjkmnp-tv-z]{26})`, "g");
  const visit = (current: unknown): unknown => {
    if (typeof current === "string") {
      return current.includes(prefix)
        ? current.replace(pattern, (_, id: string) => signedFileUrl(config, id, now))
        : current;
    }
    if (Array.isArray(current)) return current.map(visit);
    if (current !== null && typeof current === "object") {
      return Object.fromEntries(Object.entries(current).map(([key, inner]) => [key, visit(inner)]));
    }
    return current;
  };
  return visit(value) as T;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
