import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type FakeProvider, lastUserText, startFakeOpenAI } from "@app/testing";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

let builder: TestBuilder;
let fake: FakeProvider;
let browser: Browser;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  fake = await startFakeOpenAI({
    apiKey: "sk-e2e-key-000001",
    script: (turn) => ({ text: lastUserText(turn).includes("ships") ? "yes, it ships" : "no idea" }),
  });
  builder = await startTestBuilder({ env: { ALLOW_PRIVATE_URLS: "1" } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  pageErrors = collectPageErrors(page);
  const { cookie } = await builder.signUp("editor@example.com", "correct horse battery");
  await signIn(page.context(), cookie, builder.url);
  const credential = await builder.request("/api/credentials", {
    method: "POST",
    cookie,
    json: { provider: "openai-compatible", api_key: "sk-e2e-key-000001", base_url: fake.baseUrl },
  });
  expect(credential.status).toBe(201);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
});

async function center(locator: Locator) {
  const box = await locator.boundingBox();
  if (!box) throw new Error("element has no box");
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/**
 * The element's centre once it has stopped moving: auto-layout moves the nodes, then its fitView
 * moves the viewport a tick later. Two animation frames let both land before the next look.
 */
async function restingCenter(locator: Locator) {
  let last = await center(locator);
  // Still for three checks two frames apart: Auto-layout frames the graph two frames after it
  // moves the nodes, so one quiet check could fall between the move and the fit.
  for (let still = 0; still < 3; ) {
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
    const now = await center(locator);
    still = now.x === last.x && now.y === last.y ? still + 1 : 0;
    last = now;
  }
  return last;
}

async function connect(from: Locator, to: Locator) {
  const a = await restingCenter(from);
  const b = await restingCenter(to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
  await page.mouse.move(b.x, b.y, { steps: 5 });
  await page.mouse.up();
}

/** Drags a palette entry onto the canvas at (x, y) inside it, with the real mouse (HTML5 drag and drop). */
async function dropNode(type: string, x: number, y: number) {
  const canvas = await page.getByTestId("canvas").boundingBox();
  const entry = await page.getByTestId(`palette-${type}`).boundingBox();
  if (!canvas || !entry) throw new Error("no canvas or palette entry");
  await page.mouse.move(entry.x + entry.width / 2, entry.y + entry.height / 2);
  await page.mouse.down();
  await page.mouse.move(canvas.x + x, canvas.y + y, { steps: 8 });
  await page.mouse.up();
}

const sourceHandle = (id: string, handle?: string) =>
  handle
    ? page.getByTestId(`handle-${id}-${handle}`)
    : page.locator(`[data-testid=node-${id}] .react-flow__handle.source`);
const targetHandle = (id: string) => page.locator(`[data-testid=node-${id}] .react-flow__handle.target`);

describe("workflow editor", () => {
  it("builds Start → LLM → Condition → two Ends by dragging and connecting, saves, reloads and runs it", async () => {
    await page.goto(`${builder.url}/workflows`);
    await page.getByRole("button", { name: "New workflow" }).click();
    await page.waitForURL(/\/workflows\/wf_/);
    await expect.poll(() => page.getByTestId("node-start").isVisible()).toBe(true);

    // The starter's direct edge start → end_1 goes; the branch replaces it.
    await page.locator(".react-flow__edge").first().click({ force: true });
    await page.keyboard.press("Delete");
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(0);

    await dropNode("llm", 150, 150);
    await dropNode("condition", 350, 250);
    await dropNode("end", 450, 650);
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(5);
    // Unconnected nodes all land in the first column, one under the other: easy to wire up.
    await page.getByRole("button", { name: "Auto-layout" }).click();

    await connect(sourceHandle("start"), targetHandle("llm_1"));
    await connect(sourceHandle("llm_1"), targetHandle("condition_1"));
    await connect(sourceHandle("condition_1", "case_1"), targetHandle("end_1"));
    await connect(sourceHandle("condition_1", "else"), targetHandle("end_2"));
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(4);
    await page.getByRole("button", { name: "Auto-layout" }).click();

    await page.getByTestId("node-llm_1").click();
    await page.getByLabel("Provider").selectOption("openai-compatible");
    await page.getByLabel("Model").fill("fake-model");
    await page.getByLabel("Prompt", { exact: true }).fill("Does it ");
    await page.getByLabel("Insert a variable into Prompt").selectOption("{{start.question}}");

    await page.getByTestId("node-condition_1").click();
    await page.getByLabel("Conditions 1 Value", { exact: true }).fill("{{llm_1.text}}");
    await page.getByLabel("Conditions 1 Operator").selectOption("contains");
    await page.getByLabel("Conditions 1 Compared with", { exact: true }).fill("yes");

    await page.getByTestId("node-end_1").click();
    await page.getByLabel("Outputs 1 Value", { exact: true }).fill("{{llm_1.text}}");
    await page.getByTestId("node-end_2").click();
    await page.getByLabel("Outputs 1 Name", { exact: true }).fill("answer");
    await page.getByLabel("Outputs 1 Value", { exact: true }).fill("no");
    await screenshot(page, "editor-built");

    await expect.poll(() => page.locator(".step-node.has-issues").count(), { timeout: 5000 }).toBe(0);
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.getByText("saved", { exact: true }).isVisible()).toBe(true);

    await page.reload();
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(5);
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(4);

    await page.getByLabel("Input question").fill("ships on Friday");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    await expect
      .poll(() => page.getByTestId("run-result").getAttribute("data-status"), { timeout: 15_000 })
      .toBe("succeeded");
    await screenshot(page, "editor-run");
    expect(await page.getByTestId("node-llm_1").getAttribute("data-run-status")).toBe("succeeded");
    expect(await page.getByTestId("node-end_1").getAttribute("data-run-status")).toBe("succeeded");
    expect(await page.getByTestId("node-end_2").getAttribute("data-run-status")).toBe("skipped");
    expect(await page.getByTestId("run-result").textContent()).toContain("yes, it ships");
  });

  it("shows validation problems on the node at fault", async () => {
    await page.getByTestId("node-end_1").click();
    await page.getByLabel("Outputs 1 Value", { exact: true }).fill("{{nowhere.text}}");
    await expect
      .poll(() => page.locator("[data-testid=node-end_1].has-issues").count(), { timeout: 5000 })
      .toBe(1);
    await screenshot(page, "editor-validation");
    await page.keyboard.press("Escape");
  });

  it("sends a stored credential chosen in an HTTP node's authentication settings", async () => {
    const echo = createServer((req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ authorization: req.headers.authorization ?? null }));
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/whoami`;
      const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
      const secret = await builder.request("/api/credentials", {
        method: "POST",
        cookie,
        json: { provider: "http", api_key: "crm-token-0123456789", name: "CRM token" },
      });
      expect(secret.status).toBe(201);
      const created = await builder.request("/api/workflows", {
        method: "POST",
        cookie,
        json: {
          name: "call the CRM",
          graph: {
            nodes: [
              { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
              { id: "crm", type: "http", position: { x: 250, y: 0 }, data: { method: "GET", url } },
              {
                id: "done",
                type: "end",
                position: { x: 500, y: 0 },
                data: { outputs: [{ name: "sent", value: "{{crm.json.authorization}}" }] },
              },
            ],
            edges: [
              { id: "a", source: "start", target: "crm" },
              { id: "b", source: "crm", target: "done" },
            ],
          },
        },
      });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      const editor = await browser.newPage({ viewport: { width: 1500, height: 950 } });
      await editor.context().addCookies(await page.context().cookies());
      await editor.goto(`${builder.url}/workflows/${id}`);
      await editor.getByTestId("node-crm").click();
      await editor.getByLabel("Type").selectOption("bearer");
      await editor.getByLabel("Secret").selectOption({ label: "CRM token (crm-…6789)" });
      await screenshot(editor, "editor-http-auth");
      await editor.getByRole("button", { name: "Save" }).click();
      await expect.poll(() => editor.getByText("saved", { exact: true }).isVisible()).toBe(true);
      const saved = (await (await builder.request(`/api/workflows/${id}`, { cookie })).json()) as {
        graph: { nodes: { id: string; data: { auth?: unknown } }[] };
      };
      const auth = saved.graph.nodes.find((node) => node.id === "crm")?.data.auth;
      expect(auth).toMatchObject({ type: "bearer", credential_id: expect.stringMatching(/^cred_/) });
      expect(JSON.stringify(saved)).not.toContain("crm-token-0123456789");
      await editor.getByRole("button", { name: "Run", exact: true }).click();
      await expect
        .poll(() => editor.getByTestId("run-result").getAttribute("data-status"), { timeout: 15_000 })
        .toBe("succeeded");
      expect(await editor.getByTestId("run-result").textContent()).toContain("Bearer crm-token-0123456789");
      await editor.close();
    } finally {
      await new Promise((resolve) => echo.close(resolve));
    }
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
