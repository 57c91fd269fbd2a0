import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

// Human approval in the studio: the node setting, the inbox, and approve/reject on a waiting run.

let builder: TestBuilder;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;
let target: Server;
let targetUrl: string;
/** The bodies the local server received, by path. */
const received = new Map<string, unknown[]>();

beforeAll(async () => {
  target = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = new URL(request.url ?? "/", "http://x").pathname;
      const text = Buffer.concat(chunks).toString("utf8");
      received.set(path, [...(received.get(path) ?? []), text ? JSON.parse(text) : null]);
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ ok: true, path }));
    });
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("approvals@example.com", "correct horse battery"));
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await new Promise((resolve) => target?.close(resolve));
});

const graph = (path: string) => ({
  nodes: [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
    {
      id: "notify",
      type: "http",
      position: { x: 300, y: 0 },
      data: {
        title: "Notify the customer",
        method: "POST",
        url: `${targetUrl}${path}`,
        body: { text: "hello" },
      },
    },
    {
      id: "done",
      type: "end",
      position: { x: 600, y: 0 },
      data: { outputs: [{ name: "sent", value: "{{notify.json.path}}" }] },
    },
  ],
  edges: [
    { id: "a", source: "start", target: "notify" },
    { id: "b", source: "notify", target: "done" },
  ],
});

async function createWorkflow(name: string, path: string): Promise<string> {
  const created = await builder.request("/api/workflows", {
    method: "POST",
    cookie,
    json: { name, graph: graph(path) },
  });
  expect(created.status).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

async function startRun(workflowId: string) {
  const response = await builder.request(`/api/workflows/${workflowId}/runs`, {
    method: "POST",
    cookie,
    json: {},
  });
  return (await response.json()) as { id: string; status: string };
}

const runStatus = async (runId: string) =>
  ((await (await builder.request(`/api/runs/${runId}`, { cookie })).json()) as { status: string }).status;

describe("approvals in the studio", () => {
  it("turns on Requires approval in the node settings; the run waits, shows in the inbox, is approved and succeeds", async () => {
    const id = await createWorkflow("Customer notice", "/notify");
    await page.goto(`${builder.url}/workflows/${id}`);
    await page.getByTestId("node-notify").click();
    const approval = page.getByRole("region", { name: "Approval" });
    await approval.getByLabel("Requires approval").check();
    await approval.getByLabel(/Decide after/).fill("3600");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.getByText("saved", { exact: true }).isVisible()).toBe(true);
    const saved = (await (await builder.request(`/api/workflows/${id}`, { cookie })).json()) as {
      graph: { nodes: { id: string; requires_approval?: boolean; approval_timeout_s?: number }[] };
    };
    expect(saved.graph.nodes.find((node) => node.id === "notify")).toMatchObject({
      requires_approval: true,
      approval_timeout_s: 3600,
    });

    const run = await startRun(id);
    expect(run.status).toBe("waiting");
    expect(received.get("/notify")).toBeUndefined();

    // The editor folds the menu; from another screen the menu's Approvals entry leads to the inbox.
    await page.goto(`${builder.url}/workflows`);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Approvals" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe("/approvals");
    const item = page.locator(`[data-testid=approval-item][data-run-id="${run.id}"]`);
    await expect.poll(() => item.isVisible(), { timeout: 10_000 }).toBe(true);
    expect(await item.textContent()).toContain("Notify the customer");
    expect(await item.textContent()).toContain("Customer notice");
    await screenshot(page, "approvals-inbox", { isDoc: true });
    await item.getByRole("button", { name: "Approve", exact: true }).click();
    await expect.poll(() => item.count(), { timeout: 10_000 }).toBe(0);
    expect(await runStatus(run.id)).toBe("succeeded");
    expect(received.get("/notify")).toEqual([{ text: "hello" }]);
  });

  it("edits the request in the inbox before approving: the edited body is what is sent", async () => {
    const id = await createWorkflow("Edited notice", "/edited");
    await builder.request(`/api/workflows/${id}`, {
      method: "PATCH",
      cookie,
      json: {
        graph: {
          ...graph("/edited"),
          nodes: graph("/edited").nodes.map((node) =>
            node.id === "notify" ? { ...node, requires_approval: true } : node,
          ),
        },
      },
    });
    const run = await startRun(id);
    await page.goto(`${builder.url}/approvals`);
    const item = page.locator(`[data-testid=approval-item][data-run-id="${run.id}"]`);
    await expect.poll(() => item.isVisible(), { timeout: 10_000 }).toBe(true);
    await item.getByRole("button", { name: "Edit input" }).click();
    const textarea = item.getByLabel("Input to send (JSON)");
    const edited = JSON.parse(await textarea.inputValue()) as { body: unknown };
    edited.body = { text: "hello, edited" };
    await textarea.fill(JSON.stringify(edited, null, 2));
    await item.getByRole("button", { name: "Approve with edits" }).click();
    await expect.poll(() => item.count(), { timeout: 10_000 }).toBe(0);
    expect(await runStatus(run.id)).toBe("succeeded");
    expect(received.get("/edited")).toEqual([{ text: "hello, edited" }]);
  });

  it("rejects a waiting run from the run inspector: the run fails with approval_rejected and nothing is sent", async () => {
    const id = await createWorkflow("Rejected notice", "/rejected");
    await builder.request(`/api/workflows/${id}`, {
      method: "PATCH",
      cookie,
      json: {
        graph: {
          ...graph("/rejected"),
          nodes: graph("/rejected").nodes.map((node) =>
            node.id === "notify" ? { ...node, requires_approval: true } : node,
          ),
        },
      },
    });
    const run = await startRun(id);
    await page.goto(`${builder.url}/workflows/${id}/runs`);
    const row = page.getByTestId("run-row").first();
    await expect.poll(() => row.getAttribute("data-status")).toBe("waiting");
    await row.getByRole("button", { name: "Inspect" }).click();
    const detail = page.getByTestId("run-detail");
    await detail.getByRole("button", { name: "Reject" }).click();
    await expect.poll(() => runStatus(run.id), { timeout: 10_000 }).toBe("failed");
    expect(received.get("/rejected")).toBeUndefined();
    expect(pageErrors).toEqual([]);
  });
});
