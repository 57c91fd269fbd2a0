import type { Logger } from "@app/http";
import { createSandbox, type Sandbox, type SandboxOptions } from "@app/sandbox";

/**
 * The builder's one sandbox, with Go's build cache and Rust's prebuilt crates prepared in the
 * background. A host that cannot isolate code still starts the builder: the sandbox reports why
 * at /api/sandbox/runtimes and refuses runs (it never runs code unconfined).
 *
 * @example const sandbox = await openSandbox(logger, config.sandbox); ... await sandbox?.close();
 */
export async function openSandbox(
  logger: Logger,
  settings: Pick<
    SandboxOptions,
    "concurrency" | "perWorkspaceConcurrency" | "queueTimeoutMs" | "warmPerLanguage"
  > = {},
): Promise<Sandbox | undefined> {
  try {
    const sandbox = await createSandbox({ ...settings, logger });
    const report = sandbox.runtimes();
    if (!report.isAvailable) logger.warn({ reason: report.reason }, "code sandbox unavailable");
    else void sandbox.warmUp();
    return sandbox;
  } catch (error) {
    logger.error({ err: error }, "code sandbox could not start");
    return undefined;
  }
}
