import { startFakeMcp } from "@app/testing";
import { describe, expect, it } from "vitest";
import { connectMcp, mcpFailure } from "./connect-mcp.ts";
import { mcpFetch } from "./mcp-fetch.ts";

describe("connectMcp", () => {
  it("refuses a server on a private address when private URLs are not allowed, before any request", async () => {
    const mcp = await startFakeMcp();
    try {
      const error = await connectMcp(
        { url: mcp.url, transport: "auto", headers: {} },
        { fetch: mcpFetch({ allowPrivate: false }), timeoutMs: 5_000 },
      ).catch((caught: unknown) => caught);
      const failure = mcpFailure(error, "Local");
      expect(failure.code).toBe("mcp_url_refused");
      expect(failure.status).toBe(422);
      expect(mcp.calls).toEqual([]);
    } finally {
      await mcp.close();
    }
  });

  it("connects over Streamable HTTP when private URLs are allowed", async () => {
    const mcp = await startFakeMcp();
    try {
      const connection = await connectMcp(
        { url: mcp.url, transport: "auto", headers: {} },
        { fetch: mcpFetch({ allowPrivate: true }), timeoutMs: 5_000 },
      );
      expect(connection.transport).toBe("streamable_http");
      await connection.client.close();
    } finally {
      await mcp.close();
    }
  });
});
