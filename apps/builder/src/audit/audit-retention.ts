import type { Deps } from "../deps.ts";
import { purgeAuditLog } from "./purge-audit-log.ts";

const PURGE_EVERY_MS = 60 * 60 * 1000;

/**
 * Deletes audit-log entries past AUDIT_LOG_RETENTION_DAYS at start and every hour after. Each
 * process runs it; the delete is the same whoever runs it first.
 *
 * @example const retention = startAuditRetention(deps); … retention.stop();
 */
export function startAuditRetention(deps: Deps): { stop(): void } {
  const purge = () =>
    purgeAuditLog(deps, deps.config.auditLogRetentionDays)
      .then((count) => {
        if (count > 0) deps.logger.info({ deleted: count }, "audit-log entries past their retention deleted");
      })
      .catch((error: unknown) =>
        deps.logger.error({ err: String(error) }, "audit-log retention purge failed"),
      );
  void purge();
  const timer = setInterval(() => void purge(), PURGE_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
