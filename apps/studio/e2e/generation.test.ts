import { FAKE_REPLICATE_MODELS, type FakeReplicate, startFakeReplicate } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

const IMAGE = `${FAKE_REPLICATE_MODELS.image.owner}/${FAKE_REPLICATE_MODELS.image.name}`;
const VIDEO = `${FAKE_REPLICATE_MODELS.video.owner}/${FAKE_REPLICATE_MODELS.video.name}`;

/** The model select; its accessible name also holds the chosen option, and "Find a model" contains "model". */
const modelPicker = () => page.getByRole("combobox", { name: /^Model/ });

let fake: FakeReplicate;
let builder: TestBuilder;
let browser: Browser;
let page: Page;
let pageErrors: string[];

beforeAll(async () => {
  fake = await startFakeReplicate({ apiToken: "r8_e2e" });
  // PUBLIC_URL (set by the harness) makes the fake deliver signed completion webhooks to the builder.
  builder = await startTestBuilder({
    env: { REPLICATE_API_TOKEN: "r8_e2e", REPLICATE_BASE_URL: fake.baseUrl, ALLOW_PRIVATE_URLS: "1" },
  });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  pageErrors = collectPageErrors(page);
  const { cookie } = await builder.signUp("gen@example.com", "correct horse battery");
  await signIn(page.context(), cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await fake?.close();
});

describe("generation", () => {
  it("builds the input form from the model's schema", async () => {
    await page.goto(`${builder.url}/generate`);
    await expect.poll(() => page.getByText("Nothing generated yet").isVisible()).toBe(true);
    await expect.poll(() => modelPicker().inputValue()).toBe(IMAGE);
    await expect.poll(() => page.getByLabel("Prompt (required)").isVisible()).toBe(true);
    await page.getByText("More inputs").click();
    expect(await page.getByLabel("Aspect ratio").locator("option").allTextContents()).toEqual([
      "Default (1:1)",
      "1:1",
      "16:9",
      "9:16",
    ]);
    expect(await page.getByLabel("Num outputs").getAttribute("max")).toBe("4");
    await screenshot(page, "generate-empty");
  });

  it("shows a generation as running, then its image once Replicate finishes", async () => {
    fake.outcome = () => "manual";
    await page.getByLabel("Prompt (required)").fill("a red fox in the snow");
    await page.getByLabel("Aspect ratio").selectOption("16:9");
    await page.getByRole("button", { name: "Generate image" }).click();
    const card = page.getByTestId("generation").first();
    await expect.poll(() => card.getAttribute("data-status")).toBe("starting");
    expect(await card.textContent()).toContain("a red fox in the snow");
    const prediction = [...fake.predictions.values()].at(-1);
    expect(prediction?.input).toEqual({ prompt: "a red fox in the snow", aspect_ratio: "16:9" });

    await fake.complete(prediction?.id ?? "");
    await expect.poll(() => card.getAttribute("data-status"), { timeout: 15_000 }).toBe("succeeded");
    const image = card.getByRole("img");
    expect(await image.getAttribute("alt")).toContain("a red fox in the snow");
    // The browser fetched and decoded our stored copy of the PNG.
    await expect
      .poll(() => page.evaluate(`document.querySelector("[data-testid=generation] img")?.naturalWidth ?? 0`))
      .toBeGreaterThan(0);
    await screenshot(page, "generate-gallery", { isDoc: true });
  });

  it("checks an input's bounds before anything is sent", async () => {
    const before = fake.predictions.size;
    await page.getByLabel("Num outputs").fill("9");
    await page.getByRole("button", { name: "Generate image" }).click();
    expect(await page.evaluate(`document.querySelector("[name=num_outputs]").validity.rangeOverflow`)).toBe(
      true,
    );
    expect(fake.predictions.size).toBe(before);
    await page.getByLabel("Num outputs").fill("");
  });

  it("generates a video and plays it back", async () => {
    fake.outcome = () => "instant";
    await page.getByRole("radio", { name: "Video" }).check();
    await expect.poll(() => modelPicker().inputValue()).toBe(VIDEO);
    await page.getByLabel("Prompt (required)").fill("waves on a beach");
    await page.getByRole("button", { name: "Generate video" }).click();
    const card = page.getByTestId("generation").filter({ hasText: "waves on a beach" });
    await expect.poll(() => card.getAttribute("data-status"), { timeout: 15_000 }).toBe("succeeded");
    const video = card.locator("video");
    expect(await video.getAttribute("src")).toMatch(/^\/api\/files\//);
    expect(await video.getAttribute("controls")).not.toBeNull();
    expect(await page.getByTestId("generation").count()).toBe(2);

    await page.getByLabel("Show").selectOption("video");
    await expect.poll(() => page.getByTestId("generation").count()).toBe(1);
    await page.getByLabel("Show").selectOption("all");
  });

  it("raised no errors in the page", () => {
    expect(pageErrors).toEqual([]);
  });
});
