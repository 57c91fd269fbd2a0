import type { Clock } from "@app/core";
import { httpDataSchema } from "@app/workflow";
import type { FetchFunction } from "../../outbound/outbound-fetch.ts";
import { sendHttpRequest } from "../executors/http-node.ts";
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
      let local: string;
      try {
        local = now.toLocaleString("sv-SE", { timeZone: timezone }).replace(" ", "T");
      } catch {
        throw new Error(`Unknown time zone ${timezone}.`);
      }
      return { result: local, iso: now.toISOString(), unix: Math.floor(now.getTime() / 1000), timezone };
    },
  });
}

/** `http_request`: the HTTP node's request, as a tool (same SSRF guard, limits and retries). */
export function httpRequestTool(fetch: FetchFunction) {
  return defineTool({
    name: "http_request",
    description: "Sends an HTTP request and returns its status, headers, body and parsed JSON.",
    outputs: ["status", "headers", "body", "json"],
    args: httpDataSchema.omit({ title: true }),
    run: async (args, { signal }) => ({ ...(await sendHttpRequest(fetch, args, signal)) }),
  });
}
