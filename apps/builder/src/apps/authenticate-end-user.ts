import type { Clock } from "@app/core";
import type { BuilderDb } from "../db/index.ts";
import { isAppKeyOf } from "./app-keys.ts";
import { readEndUserToken } from "./end-user-tokens.ts";
import { resolveEndUser } from "./end-users.ts";
import { AppErrors } from "./errors.ts";
import type { AppRow, EndUserRow } from "./schema.ts";

/** The host's own user id, sent with an app key; the same bound as a token's `sub`. */
const END_USER_HEADER_PATTERN = /^[\x21-\x7e]{1,256}$/;

/**
 * The end user a public request speaks for, from `Authorization: Bearer …`: a token (anonymous, or
 * signed by the host site) or an app key of this app with `X-End-User`. Anything else, including a
 * token or key of another app, is a 401.
 *
 * @example const endUser = await authenticateEndUser(deps, app, c.req.header("authorization"), c.req.header("x-end-user"));
 */
export async function authenticateEndUser(
  deps: { db: BuilderDb; clock: Clock; config: { secretKey: string } },
  app: AppRow,
  authorization: string | undefined,
  endUserHeader: string | undefined,
): Promise<EndUserRow> {
  const bearer = authorization ? /^Bearer\s+(\S+)$/i.exec(authorization)?.[1] : undefined;
  if (!bearer) throw AppErrors.END_USER_UNAUTHENTICATED();
  if (await isAppKeyOf(deps, app.id, bearer)) {
    if (!endUserHeader || !END_USER_HEADER_PATTERN.test(endUserHeader)) {
      throw AppErrors.END_USER_UNAUTHENTICATED({
        message:
          "An app key speaks for one of your users: name them in `X-End-User` (1–256 visible ASCII characters).",
        param: "X-End-User",
      });
    }
    return resolveEndUser(deps, app, { kind: "customer", externalId: endUserHeader, name: undefined });
  }
  const identity = await readEndUserToken(deps.config.secretKey, app, bearer, deps.clock.now());
  if (!identity) {
    throw AppErrors.END_USER_UNAUTHENTICATED({
      message: "The end-user token is invalid, expired or meant for another app.",
    });
  }
  return resolveEndUser(deps, app, identity);
}
