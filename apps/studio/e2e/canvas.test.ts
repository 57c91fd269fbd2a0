import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

let builder: TestBuilder;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;

/** A chain start → n HTTP nodes → end, laid out in rows of ten. */
function chainGraph(count: number) {
  const ids = ["start", ...Array.from({ length: count }, (_, i) => `http_${i + 1}`), "end"];
  return {
    nodes: ids.map((id, index) => ({
      id,
      type: id === "start" ? "start" : id === "end" ? "end" : "http",
      position: { x: (index % 10) * 260, y: Math.floor(index / 10) * 140 },
      data:
        id === "start"
          ? { inputs: [] }
          : id === "end"
            ? { outputs: [{ name: "status", value: `{{http_${count}.status}}` }] }
            : { method: "GET", url: "https://example.com" },
    })),
    edges: ids.slice(1).map((id, index) => ({ id: `e${index}`, source: ids[index] ?? "", target: id })),
  };
}

async function createWorkflow(name: string, graph: unknown): Promise<string> {
  const response = await builder.request("/api/workflows", { method: "POST", cookie, json: { name, graph } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function box(locator: Locator) {
  const found = await locator.boundingBox();
  if (!found) throw new Error("element has no box");
  return found;
}

/** Waits two animation frames, so React Flow has measured and framed what just changed. */
const frames = () =>
  page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

/** Every node lies fully inside the canvas: nothing clipped at an edge. */
async function nodesInsideCanvas(): Promise<{ inside: number; total: number }> {
  const canvas = await box(page.getByTestId("canvas"));
  const boxes = await page
    .locator(".react-flow__node")
    .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().toJSON() as DOMRect));
  const inside = boxes.filter(
    (b) =>
      b.left >= canvas.x &&
      b.top >= canvas.y &&
      b.right <= canvas.x + canvas.width &&
      b.bottom <= canvas.y + canvas.height,
  ).length;
  return { inside, total: boxes.length };
}

beforeAll(async () => {
  builder = await startTestBuilder();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("canvas@example.com", "correct horse battery"));
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
});

describe("canvas", () => {
  it("gives the canvas most of a 1440 px window, and all of it with the panels folded", async () => {
    const id = await createWorkflow("small", chainGraph(3));
    await page.goto(`${builder.url}/workflows/${id}`);
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(5);
    expect((await box(page.getByTestId("canvas"))).width).toBeGreaterThan(820);

    await page.getByRole("button", { name: "Hide palette" }).click();
    await page.getByRole("button", { name: "Hide panel" }).click();
    await expect.poll(async () => (await box(page.getByTestId("canvas"))).width).toBeGreaterThan(1300);
    await frames();
    await expect.poll(nodesInsideCanvas).toEqual({ inside: 5, total: 5 });
    await page.getByRole("button", { name: "Show palette" }).click();
    await page.getByRole("button", { name: "Show panel" }).click();
  });

  it("auto-layout and fit never clip the first or last node", async () => {
    await page.getByRole("button", { name: "Auto-layout" }).click();
    await frames();
    await expect.poll(nodesInsideCanvas).toEqual({ inside: 5, total: 5 });
  });

  it("select all, delete, undo, redo, copy and paste from the keyboard", async () => {
    const pane = await box(page.locator(".react-flow__pane"));
    // An empty spot away from the zoom controls (bottom left) and the minimap (bottom right).
    await page.mouse.click(pane.x + 20, pane.y + 20);
    await page.keyboard.press("ControlOrMeta+a");
    await expect.poll(() => page.locator(".react-flow__node.selected").count()).toBe(5);
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator(".react-flow__node.selected").count()).toBe(0);

    // React Flow syncs a controlled selection into its store in an effect, and its Delete key
    // reads that store: wait for the node to show as selected before pressing the key.
    await page.getByTestId("node-http_2").click();
    await expect.poll(() => page.locator(".react-flow__node.selected").count()).toBe(1);
    await page.keyboard.press("Delete");
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(4);
    await page.keyboard.press("ControlOrMeta+z");
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(5);
    await page.keyboard.press("ControlOrMeta+Shift+z");
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(4);
    await page.keyboard.press("ControlOrMeta+z");

    await page.getByTestId("node-http_1").click();
    await expect.poll(() => page.locator(".react-flow__node.selected").count()).toBe(1);
    await page.keyboard.press("ControlOrMeta+c");
    await page.keyboard.press("ControlOrMeta+v");
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(6);
    expect(await page.getByTestId("node-http_4").isVisible()).toBe(true);
  });

  it("adds a node by dragging it from the palette with the mouse", async () => {
    const from = await box(page.getByTestId("palette-code"));
    const canvas = await box(page.getByTestId("canvas"));
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + 80, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => page.getByTestId("node-code_1").count()).toBe(1);
  });

  it("creates each template as a workflow the server accepts without issues", async () => {
    const { WORKFLOW_TEMPLATES } = await import("../src/workflows/templates.ts");
    expect(WORKFLOW_TEMPLATES.length).toBeGreaterThanOrEqual(5);
    for (const template of WORKFLOW_TEMPLATES) {
      await page.goto(`${builder.url}/workflows`);
      await page.getByRole("button", { name: `Use template ${template.name}` }).click();
      await page.waitForURL(/\/workflows\/wf_/);
      await expect.poll(() => page.locator(".react-flow__node").count()).toBe(template.graph.nodes.length);
      const id = new URL(page.url()).pathname.split("/").at(-1) ?? "";
      const stored = (await (await builder.request(`/api/workflows/${id}`, { cookie })).json()) as {
        graph: unknown;
      };
      const check = await builder.request("/api/workflows/validate", {
        method: "POST",
        cookie,
        json: { graph: stored.graph },
      });
      expect(((await check.json()) as { issues: unknown[] }).issues, template.name).toEqual([]);
    }
    await page.goto(`${builder.url}/workflows`);
    await screenshot(page, "workflow-templates", { isDoc: true });
  });

  it("shows a 200-node workflow whole, in both themes' minimap and controls", async () => {
    const id = await createWorkflow("two hundred", chainGraph(198));
    await page.goto(`${builder.url}/workflows/${id}`);
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(200);
    await page.getByRole("button", { name: "Zoom to fit" }).click();
    await frames();
    await expect.poll(nodesInsideCanvas).toEqual({ inside: 200, total: 200 });
    await screenshot(page, "canvas-200");

    await page.evaluate(() => {
      document.documentElement.dataset.theme = "dark";
    });
    const controlColour = await page
      .locator(".react-flow__controls-button")
      .first()
      .evaluate((button) => getComputedStyle(button).backgroundColor);
    const minimapColour = await page
      .locator(".react-flow__minimap")
      .evaluate((minimap) => getComputedStyle(minimap).backgroundColor);
    // The dark panel colour (#1b1d24), not the library's white.
    expect(controlColour).toBe("rgb(27, 29, 36)");
    expect(minimapColour).toBe("rgb(27, 29, 36)");
    await screenshot(page, "canvas-dark");
    expect(pageErrors).toEqual([]);
  });
});
