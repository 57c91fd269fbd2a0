import { configError } from "@app/core";
import { localDiskStorage } from "./local-disk-storage.ts";
import { type S3Settings, s3Storage } from "./s3-storage.ts";
import type { Storage } from "./storage.ts";

/** Which store keeps the builder's files, as `config.ts` reads it from the environment. */
export type StorageSettings = { kind: "local"; root: string } | ({ kind: "s3" } & S3Settings);

/**
 * The store the settings name, without touching it (no I/O): the local disk, or the S3 bucket
 * when `S3_BUCKET` is set.
 *
 * @example const storage = createStorage(config.storage);
 */
export function createStorage(settings: StorageSettings): Storage {
  return settings.kind === "s3" ? s3Storage(settings) : localDiskStorage(settings.root);
}

/**
 * The files of the builder: the storage Deps carries (opened and checked by `startBuilder`), else
 * the one the configuration names (`<DATA_DIR>/builder/files`, or the bucket of `S3_BUCKET`).
 * Knowledge uploads and generated media share it.
 *
 * @example const storage = builderStorage(deps);
 */
export function builderStorage(deps: {
  config: { storage: StorageSettings };
  storage?: Storage | undefined;
}): Storage {
  return deps.storage ?? createStorage(deps.config.storage);
}

/**
 * Creates the store and proves it usable before the service listens, so a wrong bucket, key or
 * endpoint stops the start with the variable to fix instead of failing the first upload.
 *
 * @example const storage = await openStorage(config.storage);
 */
export async function openStorage(settings: StorageSettings): Promise<Storage> {
  const storage = createStorage(settings);
  try {
    await storage.check();
  } catch (error) {
    throw settings.kind === "s3" ? s3StartError(settings, error) : error;
  }
  return storage;
}

/**
 * Where the files are, for logs; never the credentials.
 *
 * @example logger.info({ storage: describeStorage(config.storage) }, "builder listening");
 */
export function describeStorage(settings: StorageSettings): string {
  if (settings.kind === "local") return settings.root;
  return `s3://${settings.bucket}/${settings.prefix} at ${storeAddress(settings)}`;
}

function storeAddress(settings: S3Settings): string {
  return settings.endpoint ? new URL(settings.endpoint).origin : `AWS ${settings.region}`;
}

/** Turns what the start-up check ran into into a configuration error naming the variable to fix. */
function s3StartError(settings: S3Settings, error: unknown): Error {
  const name = error instanceof Error ? error.name : "";
  const reason = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  const fail = (variable: string, message: string) => configError([{ path: [variable], message }]);
  switch (name) {
    case "NoSuchBucket":
      return fail("S3_BUCKET", `the bucket "${settings.bucket}" does not exist at ${storeAddress(settings)}`);
    case "InvalidAccessKeyId":
      return settings.credentials
        ? fail("S3_ACCESS_KEY_ID", "the store does not know this access key id")
        : fail(
            "S3_ACCESS_KEY_ID",
            "unset, and the access key the AWS SDK found (AWS_* variables, profile or role) is unknown to the store",
          );
    case "SignatureDoesNotMatch":
      return fail(
        "S3_SECRET_ACCESS_KEY",
        "the store rejected the request signature: the secret does not belong to the access key id",
      );
    case "CredentialsProviderError":
      return fail(
        "S3_ACCESS_KEY_ID",
        "no credentials: set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or give the AWS SDK its own (AWS_ACCESS_KEY_ID, a profile, an instance role)",
      );
    case "AuthorizationHeaderMalformed":
    case "PermanentRedirect":
    case "IllegalLocationConstraintException":
      return fail("S3_REGION", `the store rejected the region "${settings.region}": ${reason}`);
  }
  const isUnreachable =
    name === "TimeoutError" ||
    (typeof code === "string" &&
      /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH)$/.test(code));
  if (isUnreachable)
    return fail(settings.endpoint ? "S3_ENDPOINT" : "S3_REGION", `cannot reach the store: ${reason}`);
  return new Error(
    `The S3 store ${describeStorage({ kind: "s3", ...settings })} failed its start-up check: ${name}: ${reason}`,
    {
      cause: error,
    },
  );
}
