// Helpers of the apps' browser tests (the widget on another site, the web app): publishing an agent or
// a workflow as an app over the API, and host pages served from origins other than the builder's.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";
import type { TestBuilder } from "../../builder/test/harness.ts";

/** An answer that tries every way of running script from markdown; none may work. */
export const HOSTILE_ANSWER = [
  "Here you go: <img src=x onerror=window.__pwned=1>",
  "",
  "<script>window.__pwned=1</script>",
  "",
  "Click [x](javascript:window.__pwned=1) or [y](data:text/html,<script>parent.__pwned=1</script>).",
  "",
  "![tracker](https://tracker.invalid/pixel.png)",
].join("\n");

/**
 * Publishes `target` as an app and answers its id and slug.
 *
 * @example const { slug } = await createApp(builder, cookie, { agent_id: agentId, allowed_origins: [host.origin] });
 */
export async function createApp(
  builder: TestBuilder,
  cookie: string,
  body: Record<string, unknown>,
): Promise<{ id: string; slug: string; end_user_secret: string }> {
  const response = await builder.request("/api/apps", { method: "POST", cookie, json: body });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as { id: string; slug: string; end_user_secret: string };
}

/** A web server on its own port, serving one page: another site, as far as the browser can tell. */
export interface HostSite {
  /** `http://localhost:<port>`: a different origin from the builder's `http://127.0.0.1:<port>`. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Serves `page(url)` as HTML at every path of `http://localhost:<port>`.
 *
 * @example const host = await startHostSite((url) => `<script src="${builder.url}/embed.js" data-app="x" async></script>`);
 */
export async function startHostSite(page: (url: URL) => string): Promise<HostSite> {
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(page(url));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A click where a person would click: the middle of the element, with the mouse. */
export async function click(page: Page, target: Locator): Promise<void> {
  await target.scrollIntoViewIfNeeded();
  const box = await target.boundingBox();
  if (!box) throw new Error("the element has no box to click");
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

/**
 * What a page's answer element holds that could run script: img, script, iframe, object and embed
 * elements, event-handler attributes and javascript: or data: links, under `selector` (which may be
 * inside the widget's shadow root).
 */
export function scriptableIn(page: Page, selector: string, inShadowOf?: string): Promise<string[]> {
  // A string, not a function: tsx's transform would leave helper calls the page does not have.
  return page.evaluate(`(() => {
    const root = ${inShadowOf ? `document.querySelector(${JSON.stringify(inShadowOf)}).shadowRoot` : "document"};
    const found = [];
    for (const scope of root.querySelectorAll(${JSON.stringify(selector)})) {
      for (const element of scope.querySelectorAll("*")) {
        const tag = element.tagName.toLowerCase();
        if (["img", "script", "iframe", "object", "embed", "svg", "style", "link"].includes(tag)) found.push(tag);
        for (const attribute of element.attributes)
          if (attribute.name.startsWith("on")) found.push(tag + "[" + attribute.name + "]");
        const href = element.getAttribute("href");
        if (href && !/^(https?|mailto):/i.test(href)) found.push(tag + "[href=" + href + "]");
      }
    }
    return found;
  })()`) as Promise<string[]>;
}
