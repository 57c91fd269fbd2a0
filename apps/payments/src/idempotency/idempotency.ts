import type { Clock } from "@app/core";
import { ApiError, isRejectedBeforeRunning } from "@app/http";
import { and, eq, isNull, lt, type SQL } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import type { PaymentsDb, PaymentsTx } from "../db/index.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { AuthErrors } from "../merchants/errors.ts";
import type { MerchantScope } from "../merchants/merchant-scope.ts";
import { IdempotencyErrors } from "./errors.ts";
import { hashRequest, isSameRequest } from "./hash-request.ts";
import { type IdempotencyClaim, idempotencyKeys } from "./schema.ts";

/** How long a key's first result is replayed. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/**
 * How long a claim on a key protects a request that has not answered. Every API request finishes in
 * well under a second; one that has held its key this long belongs to a process that died (crash,
 * SIGKILL, lost machine), and a retry takes the key over rather than answering 409 for 24 h.
 */
export const IDEMPOTENCY_LOCK_TIMEOUT_MS = 60_000;

/**
 * How long a request holding a key may take to commit: half the lock timeout, so a request still alive
 * when a retry could take its key over has already been refused (`request_timeout`, nothing written).
 * Creations check it, and that they still hold the claim, in the transaction that writes the object.
 */
export const IDEMPOTENCY_REQUEST_DEADLINE_MS = IDEMPOTENCY_LOCK_TIMEOUT_MS / 2;

/**
 * Answers a retry that took over an abandoned claim whose request had already created `resourceId`
 * (its recovery point): the object as it is now, with the status the first request would have had.
 * `undefined` when the object is not there (then the retry runs the request).
 */
export type IdempotencyRecoverer = (
  scope: MerchantScope,
  resourceId: string,
) => Promise<{ status: number; body: unknown } | undefined>;

function keyWhere(claim: Pick<IdempotencyClaim, "merchantId" | "environment" | "key">): SQL | undefined {
  return and(
    eq(idempotencyKeys.merchantId, claim.merchantId),
    eq(idempotencyKeys.environment, claim.environment),
    eq(idempotencyKeys.key, claim.key),
  );
}

/** The key's row while this request still holds it (no retry has taken it over since). */
function heldWhere(claim: IdempotencyClaim): SQL | undefined {
  return and(
    keyWhere(claim),
    isNull(idempotencyKeys.responseStatus),
    eq(idempotencyKeys.lockedAt, claim.lockedAt),
  );
}

/**
 * The write that records what a request created under its key (its recovery point), and the fence
 * that keeps a request from running twice. Run it in the transaction of the creation itself, before
 * the creation commits: after a crash the key says whether the object exists (a retry answers with
 * it instead of creating a second one), and a request past its deadline, or whose key a retry took
 * over, throws `request_timeout` so that its transaction writes nothing. The update holds the key's
 * row until the commit, so a retry's takeover waits for it and then finds the recovery point.
 *
 * @example if (claim) await recoveryPoint(tx, deps.clock, claim, row.id);
 */
export async function recoveryPoint(
  db: PaymentsDb | PaymentsTx,
  clock: Clock,
  claim: IdempotencyClaim,
  resourceId: string,
): Promise<void> {
  if (clock.now().getTime() >= claim.deadline.getTime()) throw IdempotencyErrors.REQUEST_TIMEOUT();
  const held = await db
    .update(idempotencyKeys)
    .set({ recoveryPoint: resourceId })
    .where(heldWhere(claim))
    .returning({ key: idempotencyKeys.key });
  if (held.length === 0) throw IdempotencyErrors.REQUEST_TIMEOUT();
}

/**
 * Makes a POST sent with `Idempotency-Key` run once: a repeat within 24 h gets the first answer
 * (status and body, with `Idempotent-Replayed: true`), a repeat while the first still runs a 409,
 * and the same key with another body (another JSON value: key order and whitespace do not count, see
 * `hashRequest`) a 422. As at Stripe, only answers of requests that ran are
 * kept: a request refused before running (`isRefusedBeforeRunning`: unreadable JSON or text, a
 * wrong media type, invalid fields, a body too large, a test helper with a live key) and answers of 500 and above free the key,
 * so the corrected request can be sent with the same key.
 *
 * A claim older than `IDEMPOTENCY_LOCK_TIMEOUT_MS` without an answer was abandoned (the process died
 * mid-request). The same request sent again takes it over: when the first one got as far as creating
 * its object (its recovery point, see `recoveryPoint`), the path's recoverer answers with that
 * object; otherwise the request runs now. Only one retry can take a claim over. A request that is
 * slow rather than dead cannot run beside its retry: it has to commit within its deadline
 * (`IDEMPOTENCY_REQUEST_DEADLINE_MS`) and while it still holds the claim (see `recoveryPoint`).
 *
 * @example app.use("/v1/*", idempotency(deps, { "/v1/payments": recoverPayment(deps) }));
 */
export function idempotency(
  deps: Pick<Deps, "db" | "clock">,
  recoverers: Readonly<Record<string, IdempotencyRecoverer>> = {},
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.header("idempotency-key");
    if (c.req.method !== "POST" || key === undefined) return next();
    if (!/^[\x21-\x7e]{1,255}$/.test(key))
      throw IdempotencyErrors.INVALID_IDEMPOTENCY_KEY({ param: "Idempotency-Key" });
    const scope = c.get("merchant");
    const body = await c.req.text();
    const requestHash = hashRequest(c.req.method, c.req.path, body);
    const now = deps.clock.now();
    const where = keyWhere({ merchantId: scope.merchantId, environment: scope.environment, key });
    const claim: IdempotencyClaim = {
      merchantId: scope.merchantId,
      environment: scope.environment,
      key,
      lockedAt: now,
      deadline: new Date(now.getTime() + IDEMPOTENCY_REQUEST_DEADLINE_MS),
    };
    await deps.db
      .delete(idempotencyKeys)
      .where(and(where, lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS))));
    const claimed = await deps.db
      .insert(idempotencyKeys)
      .values({
        merchantId: claim.merchantId,
        environment: claim.environment,
        key,
        requestHash,
        createdAt: now,
        lockedAt: now,
      })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (claimed.length === 0) {
      const [existing] = await deps.db.select().from(idempotencyKeys).where(where).limit(1);
      if (!existing) throw IdempotencyErrors.IDEMPOTENCY_KEY_IN_USE();
      if (existing.responseStatus !== null && existing.responseBody !== null) {
        if (!isSameRequest(existing.requestHash, c.req.method, c.req.path, body))
          throw IdempotencyErrors.IDEMPOTENCY_KEY_REUSED();
        return replay(existing.responseStatus, existing.responseBody);
      }
      // Still running: whether or not the body matches, nothing may run beside it (as at Stripe).
      const isAbandoned = existing.lockedAt.getTime() <= now.getTime() - IDEMPOTENCY_LOCK_TIMEOUT_MS;
      if (!isAbandoned) throw IdempotencyErrors.IDEMPOTENCY_KEY_IN_USE();
      if (!isSameRequest(existing.requestHash, c.req.method, c.req.path, body))
        throw IdempotencyErrors.IDEMPOTENCY_KEY_REUSED();
      // Compare-and-set on the old lock time: of several retries, one takes the claim over.
      const [taken] = await deps.db
        .update(idempotencyKeys)
        .set({ lockedAt: now })
        .where(
          and(where, isNull(idempotencyKeys.responseStatus), eq(idempotencyKeys.lockedAt, existing.lockedAt)),
        )
        .returning();
      if (!taken) throw IdempotencyErrors.IDEMPOTENCY_KEY_IN_USE();
      const recover = recoverers[c.req.path.replace(/\/$/, "")];
      if (taken.recoveryPoint !== null && recover !== undefined) {
        const recovered = await recover(scope, taken.recoveryPoint);
        if (recovered !== undefined) {
          const responseBody = JSON.stringify(recovered.body);
          await deps.db
            .update(idempotencyKeys)
            .set({ responseStatus: recovered.status, responseBody })
            .where(heldWhere(claim));
          return replay(recovered.status, responseBody);
        }
      }
    }
    c.set("idempotency", claim);
    // Stored or freed only while this request still holds the key: a request that outlived its claim
    // (its writes were refused by `recoveryPoint`) must not overwrite or delete the answer of the retry
    // that took the key over.
    const held = heldWhere(claim);
    let isStored = false;
    try {
      await next();
      if (c.res.status < 500 && !isRefusedBeforeRunning(c.error)) {
        const responseBody = await c.res.clone().text();
        await deps.db.update(idempotencyKeys).set({ responseStatus: c.res.status, responseBody }).where(held);
        isStored = true;
      }
    } finally {
      if (!isStored) await deps.db.delete(idempotencyKeys).where(held);
    }

    function replay(status: number, body: string) {
      return c.body(body, status as 200, {
        "content-type": "application/json; charset=utf-8",
        "idempotent-replayed": "true",
      });
    }
  };
}

/**
 * Refusals that leave nothing done: the shared ones (unreadable or invalid input, no credentials) and
 * a test helper refused to a live key (403), which no handler has started on.
 */
function isRefusedBeforeRunning(error: unknown): boolean {
  if (error instanceof ApiError && error.code === AuthErrors.codes.TEST_MODE_ONLY) return true;
  return isRejectedBeforeRunning(error);
}

type OperationObject = {
  parameters?: unknown[];
  responses?: Record<string, { description: string; headers?: Record<string, unknown>; content?: unknown }>;
};

/**
 * Declares in the OpenAPI document what the middleware adds to every POST of the API: the
 * `Idempotency-Key` header, its 409 and 422 answers, `Idempotent-Replayed` on replays, and the 503
 * `request_timeout` of the creations that write a recovery point (`fencedPaths`).
 *
 * @example const document = declareIdempotency(app.getOpenAPI31Document({ … }), ["/v1/payments"]);
 */
export function declareIdempotency<D extends { paths?: object }>(
  document: D,
  fencedPaths: readonly string[] = [],
): D {
  const errorResponse = (description: string) => ({
    description,
    content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
  });
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const operation = (item as { post?: OperationObject }).post;
    if (!path.startsWith("/v1/") || operation === undefined) continue;
    operation.parameters = [
      ...(operation.parameters ?? []),
      {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "Makes the request run once: a repeat within 24 h gets the first answer again. A request refused before running (400, 401, 403, 413, 415, 422) or answered with 500 or above does not keep its key.",
        schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
      },
    ];
    const responses = operation.responses ?? {};
    responses["409"] ??= errorResponse("`idempotency_key_in_use`: a request with this key is still running");
    responses["422"] ??= errorResponse("`idempotency_key_reused` or `invalid_idempotency_key`");
    if (fencedPaths.includes(path))
      responses["503"] ??= errorResponse(
        "`request_timeout`: the request did not commit within its 30 s deadline and changed nothing; send it again with the same key",
      );
    for (const [status, response] of Object.entries(responses)) {
      if (Number(status) >= 500) continue;
      response.headers = {
        ...response.headers,
        "Idempotent-Replayed": {
          description:
            "`true` when this is the stored answer of an earlier request with the same Idempotency-Key",
          schema: { type: "string", enum: ["true"] },
        },
      };
    }
    operation.responses = responses;
  }
  return document;
}
