import { type FakeMcp, startFakeMcp } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

let builder: TestBuilder;
let mcp: FakeMcp;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;

beforeAll(async () => {
  mcp = await startFakeMcp();
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("mcp@example.com", "correct horse battery"));
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await mcp?.close();
});

async function getJson<T>(path: string): Promise<T> {
  return (await (await builder.request(path, { cookie })).json()) as T;
}

describe("MCP in the studio", () => {
  it("adds an MCP server in settings and tests it, listing its tools", async () => {
    await page.goto(`${builder.url}/settings`);
    await expect.poll(() => page.getByText("No MCP servers").isVisible()).toBe(true);
    const form = page.getByRole("form", { name: "Add an MCP server" });
    await form.getByLabel("Name").fill("Weather");
    await form.getByLabel("URL").fill(mcp.url);
    await form.getByRole("button", { name: "Add MCP server" }).click();
    const row = page.getByTestId("mcp-server-row");
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain("not listed yet");
    await row.getByRole("button", { name: "Test Weather" }).click();
    await expect.poll(() => row.textContent()).toContain("Works over Streamable HTTP: 7 tools");
    await expect.poll(() => row.textContent()).toContain("weather");
    await screenshot(page, "settings-mcp-servers");
  });

  it("picks a tool of the server for an agent, fixes one parameter, and exposes the agent", async () => {
    const agent = (await (
      await builder.request("/api/agents", {
        method: "POST",
        cookie,
        json: { name: "Forecaster", provider: "openai", model: "gpt-4o-mini" },
      })
    ).json()) as { id: string };
    await page.goto(`${builder.url}/agents/${agent.id}`);
    await page.getByLabel(/^Weather/).check();
    await page.getByLabel("Chosen tools").check();
    await page.getByLabel(/^weather The weather in a city/).check();
    await page.getByRole("combobox", { name: "weather units", exact: true }).selectOption("fixed");
    await page.getByLabel("weather units value").fill("metric");
    await page.getByLabel(/Serve this agent as a tool/).check();
    await screenshot(page, "agent-mcp-tools");
    await page.getByRole("button", { name: "Save" }).click();
    await expect
      .poll(async () => (await getJson<{ tools: unknown[] }>(`/api/agents/${agent.id}`)).tools.length)
      .toBe(1);
    const saved = await getJson<{ tools: unknown[]; mcp_exposed: boolean }>(`/api/agents/${agent.id}`);
    const servers = await getJson<{ data: { id: string }[] }>("/api/mcp-servers");
    expect(saved.tools).toEqual([
      {
        type: "mcp",
        server_id: servers.data[0]?.id,
        tools: [{ name: "weather", fixed_arguments: { units: "metric" } }],
      },
    ]);
    expect(saved.mcp_exposed).toBe(true);
  });

  it("exposes a workflow from the editor's header", async () => {
    const workflow = (await (
      await builder.request("/api/workflows", {
        method: "POST",
        cookie,
        json: {
          name: "Echo",
          graph: {
            nodes: [
              { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
              { id: "done", type: "end", position: { x: 300, y: 0 }, data: { outputs: [] } },
            ],
            edges: [{ id: "e", source: "start", target: "done" }],
          },
        },
      })
    ).json()) as { id: string };
    await page.goto(`${builder.url}/workflows/${workflow.id}`);
    await page.getByLabel("Serve over MCP").check();
    await expect
      .poll(
        async () => (await getJson<{ mcp_exposed: boolean }>(`/api/workflows/${workflow.id}`)).mcp_exposed,
      )
      .toBe(true);
  });

  it("sets up a Tool node calling a tool of the server from its input schema, and runs it", async () => {
    const servers = await getJson<{ data: { id: string }[] }>("/api/mcp-servers");
    const workflow = (await (
      await builder.request("/api/workflows", {
        method: "POST",
        cookie,
        json: {
          name: "Echo through MCP",
          graph: {
            nodes: [
              { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
              {
                id: "call",
                type: "tool",
                position: { x: 300, y: 0 },
                data: { tool: "mcp_tool", args: { server_id: servers.data[0]?.id } },
              },
              {
                id: "done",
                type: "end",
                position: { x: 600, y: 0 },
                data: { outputs: [{ name: "said", value: "{{call.text}}" }] },
              },
            ],
            edges: [
              { id: "e1", source: "start", target: "call" },
              { id: "e2", source: "call", target: "done" },
            ],
          },
        },
      })
    ).json()) as { id: string };
    await page.goto(`${builder.url}/workflows/${workflow.id}`);
    await page.getByTestId("node-call").click();
    await page.getByRole("combobox", { name: "Tool of the server" }).selectOption("echo");
    await page.getByRole("textbox", { name: /^text \*/ }).fill("hello from the studio");
    await screenshot(page, "workflow-mcp-tool-node");
    await page.getByRole("button", { name: "Save" }).click();
    await expect
      .poll(async () => {
        const saved = await getJson<{ graph: { nodes: { id: string; data: { args?: unknown } }[] } }>(
          `/api/workflows/${workflow.id}`,
        );
        return saved.graph.nodes.find((node) => node.id === "call")?.data.args;
      })
      .toEqual({
        server_id: servers.data[0]?.id,
        tool: "echo",
        arguments: { text: "hello from the studio" },
      });
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await expect
      .poll(() => page.getByTestId("run-result").getAttribute("data-status"), { timeout: 15_000 })
      .toBe("succeeded");
    expect(await page.getByTestId("run-result").textContent()).toContain("echo: hello from the studio");
    expect(pageErrors).toEqual([]);
  });
});
