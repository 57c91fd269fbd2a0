// npm run bench -- studio
// Initial load of the built studio (gzip KB of the first screen's JS and CSS, time to interactive in
// headless Chromium) and frames per second while panning the editor with a 200-node workflow, and while
// dragging one of its nodes, next to the same over a 2-node workflow as the baseline.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { freePort } from "@app/testing";
import { chromium } from "playwright-core";
import { build } from "vite";
import { option, printTable, repoRoot, startService, temporaryDataDir } from "./lib.ts";

const nodeCount = Number(option("nodes", "200"));
const studioDir = join(repoRoot, "apps/studio");
await build({ root: studioDir, logLevel: "warn", configFile: join(studioDir, "vite.config.ts") });

// The first screen loads index.html's own script and stylesheet; the editor chunk loads on demand.
const dist = join(studioDir, "dist");
const indexHtml = readFileSync(join(dist, "index.html"), "utf8");
const firstScreen = [...indexHtml.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map(
  (m) => m[1] ?? "",
);
const gzipKb = (files: string[]) =>
  files.reduce((sum, file) => sum + gzipSync(readFileSync(join(dist, file))).length, 0) / 1024;
const allAssets = readdirSync(join(dist, "assets")).map((file) => `assets/${file}`);
const firstScreenJsKb = gzipKb(firstScreen.filter((file) => file.endsWith(".js")));
const firstScreenCssKb = gzipKb(firstScreen.filter((file) => file.endsWith(".css")));
const editorKb = gzipKb(allAssets.filter((file) => file.includes("WorkflowEditor") && file.endsWith(".js")));
const totalKb = allAssets.reduce((sum, file) => sum + statSync(join(dist, file)).size, 0) / 1024;

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const builder = await startService(
  "apps/builder/src/server.ts",
  { PORT: String(port), DATA_DIR: temporaryDataDir("bench-studio"), PUBLIC_URL: base },
  `${base}/healthz`,
);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});
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
  const [name, value] = cookie.split("=");
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addCookies([{ name: name ?? "", value: value ?? "", url: base }]);
  const page = await context.newPage();

  const loadStart = Date.now();
  await page.goto(`${base}/agents`);
  await page.getByRole("heading", { name: "Agents", exact: true }).waitFor();
  const timeToInteractive = Date.now() - loadStart;

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
  const smallWorkflow = await workflow(2);
  const bigWorkflow = await workflow(nodeCount);
  const baselineFps = await panFps(smallWorkflow);
  const bigFps = await panFps(bigWorkflow);
  const baselineDragFps = await dragFps(smallWorkflow);
  const bigDragFps = await dragFps(bigWorkflow);

  console.log("\nstudio benchmark (headless Chromium, software rendering)\n");
  printTable(
    ["measure", "value", "target"],
    [
      ["first screen JS (gzip KB)", firstScreenJsKb, "≤ 300"],
      ["first screen CSS (gzip KB)", firstScreenCssKb, ""],
      ["editor chunk, loaded on demand (gzip KB)", editorKb, ""],
      ["all assets (raw KB)", totalKb, ""],
      ["time to interactive, agents page (ms)", timeToInteractive, ""],
      ["panning fps, 2-node workflow (baseline)", baselineFps, ""],
      [`panning fps, ${nodeCount}-node workflow`, bigFps, "≥ 50"],
      ["dragging a node fps, 2-node workflow (baseline)", baselineDragFps, ""],
      [`dragging a node fps, ${nodeCount}-node workflow`, bigDragFps, ""],
    ],
  );
} finally {
  await browser.close();
  await builder.stop();
}
