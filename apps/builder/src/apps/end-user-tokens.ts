import { hkdfSync } from "node:crypto";
import { decodeJwt, jwtVerify, SignJWT } from "jose";
import { openEndUserSecret } from "./end-user-secret.ts";
import type { AppRow } from "./schema.ts";

/** How long an anonymous end user's token lasts; the browser asks for a new one after. */
export const ANONYMOUS_TOKEN_TTL_MS = 90 * 86_400_000;

/** Who a valid end-user token stands for. */
export interface EndUserIdentity {
  kind: "anonymous" | "customer";
  /** The anonymous id we issued, or the host site's own user id (`sub`). */
  externalId: string;
  name: string | undefined;
}

const MAX_SUBJECT_LENGTH = 256;

/**
 * The key anonymous tokens of one app are signed with: derived from the master secret and the app,
 * so a token of one app is a forgery to any other.
 */
function anonymousKey(masterSecret: string, appId: string): Uint8Array {
  return new Uint8Array(hkdfSync("sha256", masterSecret, "builder", `apps/anonymous-sessions/${appId}`, 32));
}

/**
 * A signed token for a new anonymous end user of `app`.
 *
 * @example const { token, expiresAt } = await issueAnonymousToken(config.secretKey, app, "anon_01…", clock.now());
 */
export async function issueAnonymousToken(
  masterSecret: string,
  app: Pick<AppRow, "id">,
  externalId: string,
  now: Date,
): Promise<{ token: string; expiresAt: Date }> {
  const expiresAt = new Date(now.getTime() + ANONYMOUS_TOKEN_TTL_MS);
  const token = await new SignJWT({ typ: "anonymous" })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(externalId)
    .setAudience(app.id)
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(anonymousKey(masterSecret, app.id));
  return { token, expiresAt };
}

/**
 * Verifies an end-user token for `app`: one we issued to an anonymous end user, or a JWT (HS256)
 * the host site signed with the app's end-user secret, with `sub` and `exp` (and optional `name`).
 * Null for anything forged, expired, malformed or meant for another app.
 *
 * @example const identity = await readEndUserToken(config.secretKey, app, token, clock.now());
 */
export async function readEndUserToken(
  masterSecret: string,
  app: AppRow,
  token: string,
  now: Date,
): Promise<EndUserIdentity | null> {
  let claims: ReturnType<typeof decodeJwt>;
  try {
    claims = decodeJwt(token);
  } catch {
    return null;
  }
  const isAnonymous = claims.typ === "anonymous";
  const key = isAnonymous
    ? anonymousKey(masterSecret, app.id)
    : new TextEncoder().encode(openEndUserSecret(masterSecret, app));
  try {
    // Only HS256: an `alg: none` or an asymmetric algorithm with our secret as its "public key" is refused.
    const { payload } = await jwtVerify(token, key, {
      algorithms: ["HS256"],
      requiredClaims: ["sub", "exp"],
      currentDate: now,
      ...(isAnonymous ? { audience: app.id } : {}),
    });
    const subject = payload.sub ?? "";
    if (subject.length === 0 || subject.length > MAX_SUBJECT_LENGTH) return null;
    const name = typeof payload.name === "string" ? payload.name.slice(0, 200) : undefined;
    return { kind: isAnonymous ? "anonymous" : "customer", externalId: subject, name };
  } catch {
    return null;
  }
}
