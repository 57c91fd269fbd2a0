// The widget's figures for `npm run bench -- apps` (bench/apps.ts calls measureWidget), or on their own:
// `npm run bench -- apps-widget [--clicks 30]` starts a builder, publishes an agent and measures.
//
// - Bytes until usable: every response from the builder that a fresh page (empty cache) receives
//   from its load until the widget's input has taken a typed character, as Chromium reports them
//   (compressed body plus headers; the request asks for `br, gzip`).
// - Click to usable: from the real mouse press on the bubble (the event's own time stamp, in the
//   page) to the `input` event of the first character typed into the widget's textarea, on a freshly
//   loaded page each time (the first open, which builds the panel). The baseline is the same gesture
//   on a blank page whose button shows and focuses a plain textarea: what the browser and the driver
//   cost by themselves.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { freePort } from "@app/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../apps/studio/e2e/browser.ts";
import { buildWidgetIfStale } from "../scripts/build.ts";
import { option, printTable, startService, temporaryDataDir } from "./lib.ts";

export interface WidgetFigures {
  /** embed.js as it crossed the wire (compressed body + headers), KB. */
  scriptKb: number;
  /** Everything from the builder until the input took a character (script + the app's config), KB. */
  untilUsableKb: number;
  /** What the encoding of embed.js was. */
  encoding: string;
  clickToUsable: { p50: number; p95: number; max: number };
  baseline: { p50: number; p95: number; max: number };
  clicks: number;
  /** Whether the host page was on another origin than the builder (CORS preflights included). */
  isCrossOrigin: boolean;
}

/** Timings of one gesture, in the page's clock. */
const RECORDER = `
  window.__bench = { down: 0, focus: 0, input: 0 };
  addEventListener("pointerdown", (event) => { window.__bench.down = event.timeStamp; }, true);
  const watch = (root) => {
    root.addEventListener("focusin", () => { window.__bench.focus ||= performance.now(); }, true);
    root.addEventListener("input", () => { window.__bench.input ||= performance.now(); }, true);
  };
  watch(document);
  // The widget's host appears after its script runs; its shadow root keeps events from retargeting.
  new MutationObserver(() => {
    const host = document.querySelector("app-chat-widget");
    if (host?.shadowRoot && !host.__watched) { host.__watched = true; watch(host.shadowRoot); }
  }).observe(document.documentElement, { childList: true, subtree: true });
`;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1) ?? Number.NaN };
}

/** Presses the button named `name` with the mouse, types one character, and answers press → input in ms. */
async function gesture(page: Page, button: ReturnType<Page["getByRole"]>): Promise<number> {
  const box = await button.boundingBox();
  if (!box) throw new Error("the button has no box to click");
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.keyboard.type("x");
  const times = (await page.evaluate("window.__bench")) as { down: number; input: number };
  if (!times.input) throw new Error("the typed character was lost: the input was not ready for it");
  return times.input - times.down;
}

const BASELINE_PAGE = `<!doctype html><html lang="en"><title>Baseline</title><button type="button" onclick="const t = document.querySelector('textarea'); t.hidden = false; t.focus();">Open chat</button><textarea hidden aria-label="Message"></textarea></html>`;

function hostPage(builderUrl: string, slug: string): string {
  return `<!doctype html><html lang="en"><title>Host</title><h1>A shop</h1><script src="${builderUrl}/embed.js" data-app="${slug}" async></script></html>`;
}

/** Where the host page and the baseline page are, and how a browser context gets to them. */
interface HostPages {
  url: string;
  baselineUrl: string;
  prepare(context: BrowserContext): Promise<void>;
  close(): Promise<void>;
}

/** The pages on a server of their own: another origin than the builder's, as a customer's site is. */
async function crossOriginPages(
  builderUrl: string,
  slug: () => string,
): Promise<HostPages & { origin: string }> {
  const host = createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    response.end(request.url === "/baseline" ? BASELINE_PAGE : hostPage(builderUrl, slug()));
  });
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  const origin = `http://localhost:${(host.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}/`,
    baselineUrl: `${origin}/baseline`,
    prepare: async () => undefined,
    close: () => {
      host.closeAllConnections();
      return new Promise<void>((resolve) => host.close(() => resolve()));
    },
  };
}

/**
 * The pages answered by the browser itself at an address on the builder's origin, which every app
 * allows: for an app published without `allowed_origins`. The API calls are then same-origin (no
 * CORS preflights), a little less than a customer's site costs.
 */
function builderOriginPages(builderUrl: string, slug: string): HostPages {
  const prefix = `${new URL(builderUrl).origin}/__widget-bench`;
  return {
    url: `${prefix}/host`,
    baselineUrl: `${prefix}/baseline`,
    prepare: async (context) => {
      await context.route(`${prefix}/**`, (route) =>
        route.fulfill({
          contentType: "text/html; charset=utf-8",
          body: route.request().url().endsWith("/baseline") ? BASELINE_PAGE : hostPage(builderUrl, slug),
        }),
      );
    },
    close: async () => undefined,
  };
}

/**
 * Measures the widget: bytes until usable and click to usable, with a blank-page baseline. With
 * `publish` the host page is on another origin, which `publish` is given and answers the slug of an
 * app allowing it; with `slug` alone it is on the builder's origin.
 *
 * @example const figures = await measureWidget({ builderUrl, publish: (origin) => createApp(origin) });
 */
export async function measureWidget(options: {
  builderUrl: string;
  publish?: (hostOrigin: string) => Promise<string>;
  slug?: string;
  clicks?: number;
  browser?: Browser;
}): Promise<WidgetFigures> {
  const clicks = options.clicks ?? 30;
  const builderOrigin = new URL(options.builderUrl).origin;
  let slug = options.slug ?? "";
  let pages: HostPages;
  let isCrossOrigin = false;
  if (options.publish) {
    const crossOrigin = await crossOriginPages(options.builderUrl, () => slug);
    pages = crossOrigin;
    isCrossOrigin = true;
    slug = await options.publish(crossOrigin.origin);
  } else pages = builderOriginPages(options.builderUrl, slug);
  const browser = options.browser ?? (await launchBrowser());
  try {
    // Bytes: a fresh context (empty cache), counting until the input has the character.
    const context = await browser.newContext({ extraHTTPHeaders: { "accept-encoding": "br, gzip" } });
    await pages.prepare(context);
    const page = await context.newPage();
    let untilUsable = 0;
    let script = 0;
    let encoding = "";
    let isUsable = false;
    const sizes: Promise<void>[] = [];
    page.on("requestfinished", (request) => {
      const url = new URL(request.url());
      if (isUsable || url.origin !== builderOrigin || request.url().startsWith(pages.url)) return;
      sizes.push(
        Promise.all([request.sizes(), request.response()]).then(([size, response]) => {
          const bytes = size.responseBodySize + size.responseHeadersSize;
          untilUsable += bytes;
          if (url.pathname === "/embed.js") {
            script = bytes;
            encoding = response?.headers()["content-encoding"] ?? "identity";
          }
        }),
      );
    });
    await page.addInitScript(RECORDER);
    await page.goto(pages.url);
    // The config the widget asks for at load is part of what it loads before use.
    await page.waitForLoadState("networkidle");
    await gesture(page, page.getByRole("button", { name: "Open chat" }));
    isUsable = true;
    await Promise.all(sizes);
    await context.close();

    const timed = async (url: string) => {
      const timing = await browser.newContext();
      await pages.prepare(timing);
      const tab = await timing.newPage();
      await tab.addInitScript(RECORDER);
      const values: number[] = [];
      // One unmeasured round first: Chromium's first paint of a new page is slower than the rest.
      for (let i = 0; i <= clicks; i++) {
        await tab.goto(url);
        const button = tab.getByRole("button", { name: "Open chat" });
        await button.waitFor();
        const value = await gesture(tab, button);
        if (i > 0) values.push(value);
      }
      await timing.close();
      return summary(values);
    };
    const baseline = await timed(pages.baselineUrl);
    const clickToUsable = await timed(pages.url);
    return {
      scriptKb: script / 1024,
      untilUsableKb: untilUsable / 1024,
      encoding,
      clickToUsable,
      baseline,
      clicks,
      isCrossOrigin,
    };
  } finally {
    if (!options.browser) await browser.close();
    await pages.close();
  }
}

/**
 * What `npm run bench -- apps` calls with its builder and app (published without allowed origins, so
 * the host page is on the builder's origin): measures and prints the widget's table.
 *
 * @example await benchWidget("http://127.0.0.1:3000", "support-bot");
 */
export async function benchWidget(base: string, slug: string): Promise<void> {
  printWidgetTable(await measureWidget({ builderUrl: base, slug }));
}

/**
 * Prints the widget's figures as a table.
 *
 * @example printWidgetTable(await measureWidget({ builderUrl, slug }));
 */
export function printWidgetTable(figures: WidgetFigures): void {
  console.log(
    `\nwidget (headless Chromium, host page on ${figures.isCrossOrigin ? "another origin" : "the builder's origin"}; KB = 1024 bytes on the wire, headers included)\n`,
  );
  printTable(["measure", "value", "target"], widgetRows(figures));
}

/**
 * The widget's rows for a bench table.
 *
 * @example printTable(["measure", "value", "target"], widgetRows(figures));
 */
export function widgetRows(figures: WidgetFigures): (string | number)[][] {
  return [
    [`embed.js on the wire (KB, ${figures.encoding})`, figures.scriptKb, "≤ 15"],
    ["widget, everything until usable (KB)", figures.untilUsableKb, "≤ 30"],
    [`click to usable p50 (ms, ${figures.clicks} clicks)`, figures.clickToUsable.p50, ""],
    ["click to usable p95 (ms)", figures.clickToUsable.p95, "≤ 300"],
    ["click to usable max (ms)", figures.clickToUsable.max, ""],
    ["baseline: plain textarea p50 (ms)", figures.baseline.p50, ""],
    ["baseline: plain textarea p95 (ms)", figures.baseline.p95, ""],
  ];
}

// On its own: a builder from source with an agent published as an app.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await buildWidgetIfStale();
  const builder = await startService(
    "apps/builder/src/server.ts",
    { PORT: String(port), DATA_DIR: temporaryDataDir("bench-widget"), PUBLIC_URL: base },
    `${base}/healthz`,
  );
  try {
    const json = { "content-type": "application/json", origin: base };
    const signUp = await fetch(`${base}/api/auth/sign-up/email`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ email: "bench@example.com", password: "benchmark-password", name: "Bench" }),
    });
    const cookie = signUp.headers.getSetCookie()[0]?.split(";")[0] ?? "";
    const agent = await fetch(`${base}/api/agents`, {
      method: "POST",
      headers: { ...json, cookie },
      body: JSON.stringify({
        name: "Helper",
        instructions: "Answer briefly.",
        provider: "openai",
        model: "gpt-4o-mini",
      }),
    });
    if (agent.status !== 201) throw new Error(`agent not created: ${await agent.text()}`);
    const agentId = ((await agent.json()) as { id: string }).id;
    const figures = await measureWidget({
      builderUrl: base,
      clicks: Number(option("clicks", "30")),
      publish: async (hostOrigin) => {
        const app = await fetch(`${base}/api/apps`, {
          method: "POST",
          headers: { ...json, cookie },
          body: JSON.stringify({ agent_id: agentId, allowed_origins: [hostOrigin] }),
        });
        if (app.status !== 201) throw new Error(`app not created (${app.status}): ${await app.text()}`);
        return ((await app.json()) as { slug: string }).slug;
      },
    });
    printWidgetTable(figures);
  } finally {
    await builder.stop();
  }
}
