import { defineErrors } from "@app/http";

export const SandboxErrors = defineErrors({
  SANDBOX_UNAVAILABLE: { status: 503, message: "The code sandbox is not available on this server." },
  LANGUAGE_UNAVAILABLE: { status: 503, message: "This language is not installed on this server." },
  SANDBOX_BUSY: {
    status: 429,
    message: "The sandbox is busy with this workspace's other runs; retry after the Retry-After seconds.",
  },
});
