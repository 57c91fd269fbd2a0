import { describe, expect, it } from "vitest";
import { listen } from "./serve.ts";

/** A handler whose answers wait until the test releases them. */
function heldHandler() {
  const waiting: (() => void)[] = [];
  let started = 0;
  return {
    fetch: async (request: Request) => {
      if (new URL(request.url).pathname === "/quick") return new Response("quick");
      started++;
      await new Promise<void>((resolve) => waiting.push(resolve));
      return new Response("done");
    },
    get started() {
      return started;
    },
    releaseAll: () => {
      for (const release of waiting.splice(0)) release();
    },
  };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("listen().close() with a grace period", () => {
  it("lets a request in flight finish, refuses new connections, and resolves once it has", async () => {
    const handler = heldHandler();
    const server = await listen(handler.fetch, { port: 0, hostname: "127.0.0.1" });
    // A kept-alive connection that is idle when the stop comes must not hold the stop up.
    expect(await (await fetch(`${server.url}/quick`)).text()).toBe("quick");
    const inFlight = fetch(`${server.url}/slow`).then((response) => response.text());
    await until(() => handler.started === 1);

    let isClosed = false;
    // A grace far beyond the test's timeout: the close can only resolve because the request ended.
    const closed = server.close({ graceMs: 600_000 }).then(() => {
      isClosed = true;
    });
    await expect(fetch(`${server.url}/quick`)).rejects.toThrow();
    expect(isClosed).toBe(false);

    handler.releaseAll();
    expect(await inFlight).toBe("done");
    await closed;
    expect(isClosed).toBe(true);
  });

  it("cuts what is still open when the grace period ends", async () => {
    const handler = heldHandler();
    const server = await listen(handler.fetch, { port: 0, hostname: "127.0.0.1" });
    const inFlight = fetch(`${server.url}/slow`).then(
      (response) => response.text(),
      (error: Error) => `cut: ${error.message}`,
    );
    await until(() => handler.started === 1);
    await server.close({ graceMs: 20 });
    expect(await inFlight).toMatch(/^cut: /);
    handler.releaseAll();
  });

  it("without a grace period cuts everything at once", async () => {
    const handler = heldHandler();
    const server = await listen(handler.fetch, { port: 0, hostname: "127.0.0.1" });
    const inFlight = fetch(`${server.url}/slow`).then(
      (response) => response.text(),
      (error: Error) => `cut: ${error.message}`,
    );
    await until(() => handler.started === 1);
    await server.close();
    expect(await inFlight).toMatch(/^cut: /);
    handler.releaseAll();
  });
});
