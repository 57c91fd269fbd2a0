import { createSandbox, type Sandbox } from "@app/sandbox";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

let sandbox: Sandbox;
let builder: TestBuilder;
let browser: Browser;
let page: Page;
let pageErrors: string[];
let cookie: string;
let workflowId: string;

beforeAll(async () => {
  sandbox = await createSandbox({ uidBase: 1_670_000_000, concurrency: 1, warmPerLanguage: 0 });
  builder = await startTestBuilder({ deps: { sandbox } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  pageErrors = collectPageErrors(page);
  ({ cookie } = await builder.signUp("coder@example.com", "correct horse battery"));
  await signIn(page.context(), cookie, builder.url);
  const created = await builder.request("/api/workflows", {
    method: "POST",
    cookie,
    json: {
      name: "shout",
      graph: {
        nodes: [
          {
            id: "start",
            type: "start",
            position: { x: 0, y: 0 },
            data: { inputs: [{ name: "text", type: "string", required: true }] },
          },
          {
            id: "code_1",
            type: "code",
            position: { x: 250, y: 0 },
            data: {
              language: "python",
              code: 'def main(inputs):\n    return {"result": inputs["value"]}\n',
              inputs: [{ name: "value", value: "{{start.text}}" }],
              outputs: [{ name: "result", type: "string" }],
            },
          },
          {
            id: "end",
            type: "end",
            position: { x: 500, y: 0 },
            data: { outputs: [{ name: "shout", value: "{{code_1.result}}" }] },
          },
        ],
        edges: [
          { id: "a", source: "start", target: "code_1" },
          { id: "b", source: "code_1", target: "end" },
        ],
      },
    },
  });
  workflowId = ((await created.json()) as { id: string }).id;
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await sandbox?.close();
});

const editor = () => page.locator(".code-editor .cm-content");

/** The code as the server stored it, after Save. */
async function savedCode(): Promise<string> {
  const response = await builder.request(`/api/workflows/${workflowId}`, { cookie });
  const workflow = (await response.json()) as { graph: { nodes: { id: string; data: { code?: string } }[] } };
  return workflow.graph.nodes.find((node) => node.id === "code_1")?.data.code ?? "";
}

async function save() {
  await page.getByRole("button", { name: "Save" }).click();
  await expect.poll(() => page.getByText("saved", { exact: true }).isVisible()).toBe(true);
}

async function runWith(text: string) {
  await page.getByLabel("Input text").fill(text);
  await page.getByRole("button", { name: "Run", exact: true }).click();
  await expect
    .poll(() => page.getByTestId("run-result").getAttribute("data-status"), { timeout: 60_000 })
    .not.toBe(null);
  return page.getByTestId("run-result").getAttribute("data-status");
}

describe("code editor", () => {
  it("edits a Code node in CodeMirror: line numbers, Python highlighting, Tab indents", async () => {
    await page.goto(`${builder.url}/workflows/${workflowId}`);
    await page.getByTestId("node-code_1").click();
    await expect.poll(() => editor().isVisible()).toBe(true);
    expect(await page.locator(".code-editor").getAttribute("data-language")).toBe("python");
    expect(
      await page.locator(".code-editor .cm-lineNumbers .cm-gutterElement", { hasText: "2" }).count(),
    ).toBe(1);
    // The grammar arrives in its own chunk; then keywords get their own colour.
    await expect.poll(() => page.locator(".code-editor .cm-line span").count()).toBeGreaterThan(0);

    await editor().click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.press("Delete");
    // Enter after a colon indents the next line, as in any Python editor.
    await page.keyboard.type("def main(inputs):");
    await page.keyboard.press("Enter");
    await page.keyboard.type('text = inputs["value"]');
    await page.keyboard.press("Enter");
    await page.keyboard.type('return {"result": text.upper() + "!" * (1 // (len(text) - 1))}');
    // Shift+Tab takes the indentation away from every line, Tab puts it back on one line at a time.
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("ControlOrMeta+Home");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Tab");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Tab");
    // Tab indented instead of moving the focus away.
    expect(await page.evaluate(() => document.activeElement?.classList.contains("cm-content"))).toBe(true);
    await screenshot(page, "code-editor", { isDoc: true });
    await save();
    expect(await savedCode()).toBe(
      'def main(inputs):\n    text = inputs["value"]\n    return {"result": text.upper() + "!" * (1 // (len(text) - 1))}',
    );
  });

  it("marks the line the last run failed on", async () => {
    expect(await runWith("a")).toBe("failed");
    await page.getByTestId("node-code_1").click();
    await expect.poll(() => page.getByTestId("code-run-error").textContent()).toContain("(line 3)");
    const marked = page.locator(".code-editor .cm-line[data-error-line]");
    await expect.poll(() => marked.textContent()).toContain("1 // (len(text) - 1)");
    expect(await page.locator(".code-editor .cm-error-gutter").textContent()).toBe("3");
    await screenshot(page, "code-editor-error-line");

    expect(await runWith("hello")).toBe("succeeded");
    expect(await page.getByTestId("run-result").textContent()).toContain("HELLO");
    await page.getByTestId("node-code_1").click();
    expect(await page.locator(".code-editor .cm-line[data-error-line]").count()).toBe(0);
  });

  it("starts each language from its template with the entry point the sandbox calls", async () => {
    // The user's own code is kept when they switch language; a blank one gets the template.
    await page.getByLabel("Language").selectOption("go");
    expect(await editor().textContent()).toContain("text.upper()");
    await editor().click();
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.press("Delete");
    await page.getByLabel("Language").selectOption("rust");
    await expect
      .poll(() => editor().textContent())
      .toContain("fn main_fn(inputs: serde_json::Value) -> Result<serde_json::Value, String>");
    for (const [language, entry] of [
      ["go", "func Main(inputs map[string]any) (map[string]any, error)"],
      ["javascript", "function main(inputs)"],
      ["python", "def main(inputs: dict) -> dict:"],
    ] as const) {
      await page.getByLabel("Language").selectOption(language);
      await expect.poll(() => editor().textContent()).toContain(entry);
      expect(await page.locator(".code-editor").getAttribute("data-language")).toBe(language);
    }
    // The template runs as it is.
    await save();
    expect(await runWith("anything")).toBe("succeeded");
  });
});

describe("run inspection", () => {
  it("shows a node's resolved inputs, outputs, duration when clicked on the canvas", async () => {
    await page.getByTestId("node-code_1").click();
    const inspector = page.getByTestId("node-run");
    await expect.poll(() => inspector.isVisible()).toBe(true);
    expect(await inspector.getByTestId("json-inputs").textContent()).toContain('"anything"');
    expect(await inspector.getByTestId("json-outputs").textContent()).toContain('result: "anything"');
    expect(await inspector.getByTestId("node-run-duration").textContent()).toMatch(/^\d+ ms$/);
    // The run's node list selects nodes too.
    await page.getByRole("button", { name: /^start succeeded/ }).click();
    await expect.poll(() => inspector.getByRole("heading").textContent()).toBe("start in this run");
    await screenshot(page, "run-inspect-node", { isDoc: true });
  });

  it("lists runs by status, inspects a failed one and runs it again with the same inputs", async () => {
    await page.getByRole("link", { name: "All runs" }).click();
    const rows = page.getByTestId("run-row");
    await expect.poll(() => rows.count()).toBe(3);
    await page.getByText("Failed", { exact: true }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByRole("button", { name: "Inspect" }).click();
    const detail = page.getByTestId("run-detail");
    await expect.poll(() => detail.getByTestId("node-run-error").textContent()).toContain("(line 3)");
    expect(await detail.getByTestId("json-inputs").textContent()).toContain('"a"');
    await screenshot(page, "runs-page", { isDoc: true });

    await page.getByRole("button", { name: "Re-run" }).click();
    await page.getByText("All", { exact: true }).click();
    await expect.poll(() => rows.count()).toBe(4);
    // The new run is first, with the failed run's inputs (and today's code, which succeeds).
    expect(await rows.first().getAttribute("data-status")).toBe("succeeded");
    expect(await rows.first().textContent()).toContain('{"text":"a"}');
    expect(pageErrors).toEqual([]);
  });

  it("shows what a Code node printed, stdout and stderr, in the node's run", async () => {
    const stored = (await (await builder.request(`/api/workflows/${workflowId}`, { cookie })).json()) as {
      graph: { nodes: { id: string; data: Record<string, unknown> }[] };
    };
    const code = stored.graph.nodes.find((node) => node.id === "code_1");
    if (code) {
      code.data.code =
        'import sys\ndef main(inputs):\n    print("got", inputs["value"])\n    print("a warning", file=sys.stderr)\n    return {"result": inputs["value"]}\n';
    }
    const patched = await builder.request(`/api/workflows/${workflowId}`, {
      method: "PATCH",
      cookie,
      json: { graph: stored.graph },
    });
    expect(patched.status).toBe(200);
    await page.goto(`${builder.url}/workflows/${workflowId}`);
    expect(await runWith("logged")).toBe("succeeded");
    await page.getByTestId("node-code_1").click();
    const inspector = page.getByTestId("node-run");
    await expect.poll(() => inspector.getByTestId("node-run-stdout").textContent()).toBe("got logged\n");
    expect(await inspector.getByTestId("node-run-stderr").textContent()).toBe("a warning\n");
    // A stored run shows them too: the runs page reads them back from the API.
    await page.getByRole("link", { name: "All runs" }).click();
    await page.getByRole("button", { name: "Inspect" }).first().click();
    const detail = page.getByTestId("run-detail");
    await detail.getByRole("button", { name: /code_1/ }).click();
    await expect.poll(() => detail.getByTestId("node-run-stdout").textContent()).toBe("got logged\n");
    expect(pageErrors).toEqual([]);
  });
});
