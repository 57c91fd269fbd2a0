import type { Logger } from "@app/http";
import { createSandbox, type Sandbox, type SandboxOptions } from "@app/sandbox";

/**
 * The builder's one sandbox, its warm runners not started yet: `sandbox.warmUp()` starts them and
 * prepares Go's build cache and Rust's prebuilt crates, once the builder listens (several processes
 * that would otherwise compete with the database's opening for the CPU). A host that cannot isolate
 * code still starts the builder: the sandbox reports why at /api/sandbox/runtimes and refuses runs
 * (it never runs code unconfined).
 *
 * @example const sandbox = await openSandbox(logger, config.sandbox); await listen(...); void sandbox?.warmUp(); ... await sandbox?.close();
 */
export async function openSandbox(
  logger: Logger,
  settings: Pick<
    SandboxOptions,
    "concurrency" | "perWorkspaceConcurrency" | "contentionWindowMs" | "queueTimeoutMs" | "warmPerLanguage"
  > = {},
): Promise<Sandbox | undefined> {
  try {
    const sandbox = await createSandbox({ ...settings, logger, isWarmedOnCreate: false });
    const report = sandbox.runtimes();
    if (!report.isAvailable) logger.warn({ reason: report.reason }, "code sandbox unavailable");
    return sandbox;
  } catch (error) {
    logger.error({ err: error }, "code sandbox could not start");
    return undefined;
  }
}
