import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

export const artifactsDir = fileURLToPath(new URL("../../../test-artifacts/studio", import.meta.url));

/** Debian's Chromium, headless, with the flags that keep it off the (absent) network. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

/**
 * Signs a browser context in with a session cookie as the API's sign-up answers it (`name=value`),
 * for the builder at `url`.
 *
 * @example await signIn(page.context(), (await builder.signUp()).cookie, builder.url);
 */
export async function signIn(context: BrowserContext, cookie: string, url: string): Promise<void> {
  const split = cookie.indexOf("=");
  await context.addCookies([{ name: cookie.slice(0, split), value: cookie.slice(split + 1), url }]);
}

export const docsImagesDir = fileURLToPath(new URL("../../../docs/images/studio", import.meta.url));

/**
 * Saves a full-page screenshot as a test artifact; with `isDoc`, also the window as docs/studio.md
 * shows it (docs/images/studio/{name}.png), so the docs' pictures are as current as the last run.
 */
export async function screenshot(page: Page, name: string, options: { isDoc?: boolean } = {}): Promise<void> {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: join(artifactsDir, `${name}.png`), fullPage: true });
  if (options.isDoc) {
    mkdirSync(docsImagesDir, { recursive: true });
    await page.screenshot({ path: join(docsImagesDir, `${name}.png`), fullPage: false });
  }
}

/** Fails the test on any uncaught error in the page. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`${error.message}\n${error.stack ?? ""}`.slice(0, 600)));
  return errors;
}

/** An accessibility problem axe-core rates serious or critical, with where it is. */
export interface A11yViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (WCAG 2.1 A and AA rules) on the page as it is and answers its serious and critical
 * violations; tests expect none.
 *
 * @example expect(await a11yViolations(page)).toEqual([]);
 */
export async function a11yViolations(page: Page): Promise<A11yViolation[]> {
  const axe = createRequire(import.meta.url)("axe-core") as { source: string };
  if (!(await page.evaluate("typeof window.axe !== 'undefined'")))
    // A page whose Content-Security-Policy refuses inline scripts (the apps' web app) refuses the tag;
    // an evaluation through the DevTools protocol is not subject to the policy.
    await page.addScriptTag({ content: axe.source }).catch(() => page.evaluate(axe.source));
  // A string, not a function: tsx's transform would leave helper calls the page does not have.
  const found = (await page.evaluate(`
    window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } })
      .then((result) => result.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
      })))
  `)) as A11yViolation[];
  return found.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
}
