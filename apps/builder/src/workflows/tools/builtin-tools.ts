import type { Clock } from "@app/core";
import { httpDataSchema } from "@app/workflow";
import type { FetchFunction } from "../../outbound/outbound-fetch.ts";
import { type CredentialSecrets, sendWithRetries } from "../executors/http-node.ts";
import { defineTool, z } from "./registry.ts";

/** `current_time`: the time now, in UTC and, when asked, in an IANA time zone. */
export function currentTimeTool(clock: Clock) {
  return defineTool({
    name: "current_time",
    description: "The current date and time (ISO 8601), Unix seconds, and the time in a given time zone.",
    outputs: ["result", "iso", "unix", "timezone"],
    args: z.object({ timezone: z.string().max(64).default("UTC") }),
    run: async ({ timezone }) => {
      const now = clock.now();
      const local = localTime(now, timezone);
      return { result: local, iso: now.toISOString(), unix: Math.floor(now.getTime() / 1000), timezone };
    },
  });
}

// Building an Intl formatter costs far more than using one; time zones are few, so keep them.
const formatters = new Map<string, Intl.DateTimeFormat>();

/** `2026-11-22T10:15:00` in the zone, like sv-SE's ISO-looking local format. */
function localTime(now: Date, timezone: string): string {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat("sv-SE", {
        timeZone: timezone,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
      });
    } catch {
      throw new Error(`Unknown time zone ${timezone}.`);
    }
    if (formatters.size < 1000) formatters.set(timezone, formatter);
  }
  return formatter.format(now).replace(" ", "T");
}

/** `http_request`: the HTTP node's request, as a tool (same SSRF guard, limits and retries). */
export function httpRequestTool(
  fetch: FetchFunction,
  secrets: (workspaceId: string) => CredentialSecrets,
  clock: Clock,
) {
  return defineTool({
    name: "http_request",
    description: "Sends an HTTP request and returns its status, headers, body and parsed JSON.",
    outputs: ["status", "headers", "body", "json"],
    args: httpDataSchema.omit({ title: true }),
    run: async (args, { workspaceId, signal }) => ({
      ...(await sendWithRetries(fetch, args, { signal, clock }, secrets(workspaceId))),
    }),
  });
}
