// npm run bench -- studio
// Bytes on the wire (as the browser received them, compressed, headers included) for the first
// screen and for the workflow editor with its code editor, time to interactive, frames per second
// while panning a 200-node and a 1,000-node workflow (and dragging a node), and how long the
// 1,000-node workflow takes to open, in headless Chromium against the real builder.
import { join } from "node:path";
import { freePort } from "@app/testing";
import type { Page } from "playwright-core";
import { build } from "vite";
import { launchBrowser, signIn } from "../apps/studio/e2e/browser.ts";
import { codeWorkflowGraph } from "../apps/studio/e2e/seed.ts";
import { option, printTable, repoRoot, startService, temporaryDataDir } from "./lib.ts";

const nodeCount = Number(option("nodes", "200"));
const bigCount = Number(option("big", "1000"));
const studioDir = join(repoRoot, "apps/studio");
await build({ root: studioDir, logLevel: "warn", configFile: join(studioDir, "vite.config.ts") });

/** Counts the bytes of every response the page receives: compressed body plus headers. */
function wireMeter(page: Page) {
  let total = 0;
  let assets = 0;
  const pending: Promise<void>[] = [];
  page.on("requestfinished", (request) => {
    pending.push(
      request.sizes().then((sizes) => {
        const bytes = sizes.responseBodySize + sizes.responseHeadersSize;
        total += bytes;
        if (new URL(request.url()).pathname.startsWith("/assets/")) assets += bytes;
      }),
    );
  });
  return {
    async read() {
      await Promise.all(pending);
      return { total: total / 1024, assets: assets / 1024 };
    },
  };
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const builder = await startService(
  "apps/builder/src/server.ts",
  { PORT: String(port), DATA_DIR: temporaryDataDir("bench-studio"), PUBLIC_URL: base },
  `${base}/healthz`,
);
const browser = await launchBrowser();
try {
  const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email: "bench@example.com", password: "benchmark-password", name: "Bench" }),
  });
  const cookie = signUp.headers.getSetCookie()[0]?.split(";")[0] ?? "";
  const workflow = async (count: number) => {
    const nodes = [
      { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
      ...Array.from({ length: count - 2 }, (_, i) => ({
        id: `t${i}`,
        type: "tool",
        position: { x: 280 * (1 + (i % 14)), y: 140 * Math.floor(i / 14) },
        data: { tool: "current_time", args: {} },
      })),
      { id: "end", type: "end", position: { x: 280 * 16, y: 0 }, data: { outputs: [] } },
    ];
    const ids = nodes.map((n) => n.id);
    const edges = ids.slice(1).map((id, i) => ({ id: `e${i}`, source: ids[i] ?? "", target: id }));
    const response = await fetch(`${base}/api/workflows`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base, cookie },
      body: JSON.stringify({ name: `bench ${count}`, graph: { nodes, edges } }),
    });
    if (response.status !== 201) throw new Error(`workflow not created: ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  };
  const codeWorkflow = async () => {
    const response = await fetch(`${base}/api/workflows`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: base, cookie },
      body: JSON.stringify({ name: "bench code", graph: codeWorkflowGraph() }),
    });
    return ((await response.json()) as { id: string }).id;
  };
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await signIn(context, cookie, base);
  const page = await context.newPage();
  const meter = wireMeter(page);
  await codeWorkflow();

  const loadStart = Date.now();
  await page.goto(`${base}/agents`);
  await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
  const timeToInteractive = Date.now() - loadStart;
  await page.waitForLoadState("networkidle");
  const firstScreen = await meter.read();

  // The editor as a user reaches it: in-app navigation, then a Code node opened in CodeMirror.
  await page.getByRole("link", { name: "Workflows" }).click();
  await page.getByRole("link", { name: "bench code" }).click();
  await page.getByTestId("node-code").click();
  await page.locator(".code-editor .cm-content").waitFor();
  await page.locator(".code-editor .cm-line span").first().waitFor();
  await page.waitForLoadState("networkidle");
  const withEditor = await meter.read();

  /** Frames per second while the mouse, pressed at `from`, sweeps back and forth. */
  const sweepFps = async (from: { x: number; y: number }) => {
    // A string, not a function: tsx's transform would leave helper calls the page does not have.
    await page.evaluate(`
      window.frames_ = 0; window.counting_ = true;
      (function tick() { if (!window.counting_) return; window.frames_ += 1; requestAnimationFrame(tick); })();
    `);
    const started = Date.now();
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    for (let i = 0; i < 120; i++) {
      const dx = Math.sin(i / 10) * 300;
      await page.mouse.move(from.x + dx, from.y + dx / 3);
    }
    await page.mouse.up();
    const seconds = (Date.now() - started) / 1000;
    const frames = Number(await page.evaluate("window.counting_ = false, window.frames_"));
    return frames / seconds;
  };
  const openEditor = async (workflowId: string) => {
    await page.goto(`${base}/workflows/${workflowId}`);
    await page.locator(".react-flow__node").first().waitFor();
    const canvas = await page.getByTestId("canvas").boundingBox();
    if (!canvas) throw new Error("no canvas");
    return canvas;
  };
  const panFps = async (workflowId: string) => {
    const canvas = await openEditor(workflowId);
    // Panning starts on empty canvas: pressing on a node would drag the node instead.
    const from = JSON.parse(
      String(
        await page.evaluate(`(() => {
          for (let y = ${Math.round(canvas.y + 20)}; y < ${Math.round(canvas.y + canvas.height - 20)}; y += 10)
            for (let x = ${Math.round(canvas.x + 20)}; x < ${Math.round(canvas.x + canvas.width - 20)}; x += 10)
              if (document.elementFromPoint(x, y)?.classList.contains("react-flow__pane")) return JSON.stringify({ x, y });
          return "null";
        })()`),
      ),
    ) as { x: number; y: number } | null;
    if (!from) throw new Error("no empty spot on the canvas to pan from");
    return sweepFps(from);
  };
  const dragFps = async (workflowId: string) => {
    await openEditor(workflowId);
    const box = await page.locator(".react-flow__node").nth(1).boundingBox();
    if (!box) throw new Error("no node to drag");
    return sweepFps({ x: box.x + box.width / 2, y: box.y + box.height / 2 });
  };
  const openTime = async (workflowId: string, count: number) => {
    // Assets are cached by now (immutable): this is the editor's own work plus the workflow's JSON.
    const started = Date.now();
    await page.goto(`${base}/workflows/${workflowId}`);
    await page.waitForFunction(
      `document.querySelectorAll(".react-flow__node").length >= ${Math.min(count, 300)}`,
      undefined,
      { timeout: 60_000 },
    );
    await page.evaluate(
      "new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))",
    );
    return Date.now() - started;
  };
  const smallWorkflow = await workflow(2);
  const bigWorkflow = await workflow(nodeCount);
  const hugeWorkflow = await workflow(bigCount);
  const baselineFps = await panFps(smallWorkflow);
  const bigFps = await panFps(bigWorkflow);
  const baselineDragFps = await dragFps(smallWorkflow);
  const bigDragFps = await dragFps(bigWorkflow);
  const hugeOpenMs = await openTime(hugeWorkflow, bigCount);
  const hugeFps = await panFps(hugeWorkflow);

  console.log("\nstudio benchmark (headless Chromium, software rendering; KB = 1024 bytes on the wire)\n");
  printTable(
    ["measure", "value", "target"],
    [
      ["first screen, all responses (KB)", firstScreen.total, "≤ 120"],
      ["first screen, /assets only (KB)", firstScreen.assets, ""],
      ["workflow editor + code editor, more (KB)", withEditor.total - firstScreen.total, "≤ 250"],
      ["time to interactive, agents page (ms)", timeToInteractive, ""],
      ["panning fps, 2-node workflow (baseline)", baselineFps, ""],
      [`panning fps, ${nodeCount}-node workflow`, bigFps, "≥ 55"],
      ["dragging a node fps, 2-node workflow (baseline)", baselineDragFps, ""],
      [`dragging a node fps, ${nodeCount}-node workflow`, bigDragFps, ""],
      [`open a ${bigCount}-node workflow (ms)`, hugeOpenMs, "≤ 1500"],
      [`panning fps, ${bigCount}-node workflow`, hugeFps, "≥ 30"],
    ],
  );
} finally {
  await browser.close();
  await builder.stop();
}
