import { Readable, Transform } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { GenerationContext } from "./generation-context.ts";

/** Raised when an output cannot be kept: too large, a type we do not serve, or unreachable. */
export class OutputCopyError extends Error {
  override name = "OutputCopyError";
}

const EXTENSION_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
};

/**
 * Streams one output URL into storage under `key`: never buffered whole, cut off past
 * `maxOutputBytes`, only images and videos (a generic `application/octet-stream` is typed from the
 * URL's extension). Replicate deletes API outputs after an hour, so this runs as soon as a
 * prediction succeeds.
 *
 * @example const { contentType, sizeBytes } = await copyOutput(context, "https://replicate.delivery/…/out-0.png", "generations/ws_1/gen_1/0");
 */
export async function copyOutput(
  context: Pick<GenerationContext, "storage" | "settings" | "fetchOutput">,
  url: string,
  key: string,
): Promise<{ contentType: string; sizeBytes: number }> {
  const { settings } = context;
  let response: Response;
  try {
    response = await context.fetchOutput(url, { signal: AbortSignal.timeout(settings.downloadTimeoutMs) });
  } catch (error) {
    throw new OutputCopyError(`The output ${url} could not be downloaded: ${(error as Error).message}`);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw new OutputCopyError(`The output ${url} answered ${response.status}.`);
  }
  const contentType = outputType(response.headers.get("content-type"), url);
  if (!contentType) {
    await response.body.cancel();
    throw new OutputCopyError(
      `The output ${url} is ${response.headers.get("content-type") ?? "untyped"}, not an image or video.`,
    );
  }
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > settings.maxOutputBytes) {
    await response.body.cancel();
    throw new OutputCopyError(`The output ${url} is larger than ${settings.maxOutputBytes} bytes.`);
  }
  let seen = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > settings.maxOutputBytes)
        return done(
          new OutputCopyError(`The output ${url} is larger than ${settings.maxOutputBytes} bytes.`),
        );
      done(null, chunk);
    },
  });
  const body = Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>);
  body.on("error", (error) => cap.destroy(error));
  const { sizeBytes } = await context.storage.put(key, body.pipe(cap));
  return { contentType, sizeBytes };
}

function outputType(header: string | null, url: string): string | undefined {
  const type = (header ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (/^(image|video)\/[a-z0-9.+-]+$/.test(type)) return type;
  if (type !== "" && type !== "application/octet-stream" && type !== "binary/octet-stream") return undefined;
  const extension = /\.([a-z0-9]+)$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase() ?? "";
  return EXTENSION_TYPES[extension];
}

/**
 * Deletes stored output files whose generation will not keep them. A failed delete only leaves
 * bytes no row points at, so it is logged (an operator can sweep them) rather than thrown.
 *
 * @example await removeStoredOutputs(context, ["generations/ws_1/gen_1/0"]);
 */
export async function removeStoredOutputs(
  context: Pick<GenerationContext, "storage" | "logger">,
  keys: readonly string[],
): Promise<void> {
  await Promise.all(
    keys.map((key) =>
      context.storage
        .delete(key)
        .catch((error: unknown) => context.logger.warn({ err: error, key }, "stored file not removed")),
    ),
  );
}
