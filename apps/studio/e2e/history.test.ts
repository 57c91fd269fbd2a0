// History, edit conflicts and import in the studio: the history drawer's differences and restore
// (with undo), two tabs saving one workflow (the second gets the conflict and loses nothing), the
// agent editor's unsaved-changes guard and conflict, and importing by dropping a file.
import { readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { a11yViolations, collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

let builder: TestBuilder;
let browser: Browser;
let context: BrowserContext;
let cookie: string;

const answerGraph = (answer: string) => ({
  nodes: [
    { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
    {
      id: "done",
      type: "end",
      position: { x: 320, y: 0 },
      data: { outputs: [{ name: "answer", value: answer }] },
    },
  ],
  edges: [{ id: "start-done", source: "start", target: "done" }],
});

beforeAll(async () => {
  builder = await startTestBuilder();
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1500, height: 950 } });
  ({ cookie } = await builder.signUp("history@example.com", "correct horse battery"));
  await signIn(context, cookie, builder.url);
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
});

async function api<T = Record<string, unknown>>(
  path: string,
  init: { method?: string; json?: unknown } = {},
): Promise<T> {
  const response = await builder.request(path, { cookie, ...init });
  expect(response.status, `${init.method ?? "GET"} ${path}`).toBeLessThan(300);
  return (await response.json()) as T;
}

async function newPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  return { page, errors: collectPageErrors(page) };
}

const answerOf = async (workflowId: string) =>
  JSON.stringify((await api<{ graph: unknown }>(`/api/workflows/${workflowId}`)).graph).match(
    /"value":"([^"]*)"/,
  )?.[1];

describe("history and conflicts", () => {
  it("the history drawer lists versions, shows a version's differences from the draft, and restores it with undo", async () => {
    const workflow = await api<{ id: string }>("/api/workflows", {
      method: "POST",
      json: { name: "Greeter", graph: answerGraph("one") },
    });
    await api(`/api/workflows/${workflow.id}/versions`, { method: "POST", json: { notes: "First answer" } });
    await api(`/api/workflows/${workflow.id}`, { method: "PATCH", json: { graph: answerGraph("two") } });

    const { page, errors } = await newPage();
    await page.goto(`${builder.url}/workflows/${workflow.id}`);
    await page.getByRole("button", { name: "History" }).click();
    const drawer = page.getByTestId("history-drawer");
    const version = drawer.getByTestId("history-version").filter({ hasText: "Version 1" });
    await expect.poll(() => version.textContent()).toContain("First answer");
    expect(await version.textContent()).toContain("by you");

    await version.getByRole("button", { name: "Compare with draft" }).click();
    const diff = drawer.getByTestId("diff");
    await expect.poll(() => diff.textContent()).toContain("data.outputs");
    expect(await diff.textContent()).toMatch(/one.*two/s);
    // The version on a canvas of its own, the node the draft changed highlighted.
    await expect
      .poll(() => drawer.getByTestId("preview-node-done").getAttribute("data-status"))
      .toBe("changed");
    expect(await drawer.getByTestId("preview-node-start").getAttribute("data-status")).toBe("same");
    expect(await a11yViolations(page)).toEqual([]);
    await screenshot(page, "history-drawer", { isDoc: true });

    await version.getByRole("button", { name: "Restore…" }).click();
    await drawer.getByRole("button", { name: "Restore version 1" }).click();
    const toast = page.getByTestId("toast");
    await expect.poll(() => toast.textContent()).toContain("Restored version 1 into the draft.");
    expect(await answerOf(workflow.id)).toBe("one");
    expect(await page.getByTestId("history-drawer").isVisible()).toBe(false);
    // The editor now holds the restored draft, saved.
    expect(await page.locator(".editor-toolbar .badge").textContent()).toBe("saved");

    await toast.getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => toast.textContent()).toContain("Undone");
    expect(await answerOf(workflow.id)).toBe("two");
    // The history kept everything: still one version, and the draft is as before.
    const versions = await api<{ data: unknown[] }>(`/api/workflows/${workflow.id}/versions`);
    expect(versions.data).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("two tabs editing one workflow: the second save gets the conflict, keeps its edits, and overwrites or reloads only when asked", async () => {
    const workflow = await api<{ id: string }>("/api/workflows", {
      method: "POST",
      json: { name: "Shared", graph: answerGraph("shared") },
    });
    const first = await newPage();
    const second = await newPage();
    // A tab in the background gets no animation frames, which React Flow draws in: each comes to the
    // front before it is used, as a person switching tabs brings it.
    for (const { page } of [first, second]) {
      page.on("dialog", (dialog) => void dialog.accept());
      await page.bringToFront();
      await page.goto(`${builder.url}/workflows/${workflow.id}`);
      await expect.poll(() => page.getByTestId("node-done").isVisible()).toBe(true);
    }
    const nameOf = (page: Page) => page.getByLabel("Workflow name");
    const badge = (page: Page) => page.locator(".editor-toolbar .badge");

    await first.page.bringToFront();
    await nameOf(first.page).fill("Renamed in tab one");
    await first.page.getByRole("button", { name: "Save", exact: true }).click();
    await expect.poll(() => badge(first.page).textContent()).toBe("saved");

    await second.page.bringToFront();
    await nameOf(second.page).fill("Renamed in tab two");
    await second.page.getByRole("button", { name: "Save", exact: true }).click();
    const conflict = second.page.getByTestId("conflict-dialog");
    await expect.poll(() => conflict.isVisible()).toBe(true);
    // Nothing of tab two was lost or saved: its edit is on screen, the server has tab one's.
    expect(await nameOf(second.page).inputValue()).toBe("Renamed in tab two");
    expect((await api<{ name: string }>(`/api/workflows/${workflow.id}`)).name).toBe("Renamed in tab one");
    await conflict.getByRole("button", { name: "See their changes" }).click();
    await expect
      .poll(() => conflict.getByRole("region", { name: "Their changes" }).textContent())
      .toContain("Renamed in tab one");
    expect(await a11yViolations(second.page)).toEqual([]);
    await screenshot(second.page, "edit-conflict", { isDoc: true });

    // "Keep editing" keeps the conflict: the next save shows it again.
    await conflict.getByRole("button", { name: "Keep editing" }).click();
    await second.page.getByRole("button", { name: "Save", exact: true }).click();
    await expect.poll(() => conflict.isVisible()).toBe(true);
    await conflict.getByRole("button", { name: "Overwrite with mine" }).click();
    await expect.poll(() => conflict.isVisible()).toBe(false);
    await expect.poll(() => badge(second.page).textContent()).toBe("saved");
    expect((await api<{ name: string }>(`/api/workflows/${workflow.id}`)).name).toBe("Renamed in tab two");

    // Tab one saves again on its old revision: now it is the one told, and it reloads theirs.
    await first.page.bringToFront();
    await nameOf(first.page).fill("Tab one again");
    await first.page.getByRole("button", { name: "Save", exact: true }).click();
    const firstConflict = first.page.getByTestId("conflict-dialog");
    await expect.poll(() => firstConflict.isVisible()).toBe(true);
    expect((await api<{ name: string }>(`/api/workflows/${workflow.id}`)).name).toBe("Renamed in tab two");
    await firstConflict.getByRole("button", { name: "Reload theirs" }).click();
    await expect.poll(() => nameOf(first.page).inputValue()).toBe("Renamed in tab two");
    expect(await badge(first.page).textContent()).toBe("saved");
    expect([...first.errors, ...second.errors]).toEqual([]);
    await first.page.close();
    await second.page.close();
  });

  it("the agent editor asks before leaving unsaved changes, shows a conflict, and restores a version from its history", async () => {
    const agent = await api<{ id: string }>("/api/agents", {
      method: "POST",
      json: { name: "Concierge", provider: "openai", model: "gpt-4o-mini", instructions: "Be kind." },
    });
    await api(`/api/agents/${agent.id}/versions`, { method: "POST", json: { notes: "Kind" } });
    const { page, errors } = await newPage();
    await page.goto(`${builder.url}/agents/${agent.id}`);
    const instructions = page.getByLabel("Instructions");
    await expect.poll(() => instructions.inputValue()).toBe("Be kind.");
    await instructions.fill("Be kind and brief.");

    // Leaving by the menu asks; refused, the edit stays.
    page.once("dialog", (dialog) => {
      expect(dialog.message()).toBe("Leave without saving your changes?");
      void dialog.dismiss();
    });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workflows" }).click();
    expect(new URL(page.url()).pathname).toBe(`/agents/${agent.id}`);
    expect(await instructions.inputValue()).toBe("Be kind and brief.");

    // Someone else saves meanwhile: this save gets the conflict, the edit kept.
    await api(`/api/agents/${agent.id}`, { method: "PATCH", json: { instructions: "Be formal." } });
    await page.getByRole("button", { name: "Save" }).click();
    const conflict = page.getByTestId("conflict-dialog");
    await expect.poll(() => conflict.isVisible()).toBe(true);
    await conflict.getByRole("button", { name: "See their changes" }).click();
    await expect
      .poll(() => conflict.getByRole("region", { name: "Their changes" }).textContent())
      .toContain("Be formal.");
    await conflict.getByRole("button", { name: "Overwrite with mine" }).click();
    await expect.poll(() => conflict.isVisible()).toBe(false);
    expect((await api<{ instructions: string }>(`/api/agents/${agent.id}`)).instructions).toBe(
      "Be kind and brief.",
    );

    await page.getByRole("button", { name: "History" }).click();
    const drawer = page.getByTestId("history-drawer");
    const version = drawer.getByTestId("history-version").filter({ hasText: "Version 1" });
    await version.getByRole("button", { name: "Compare with draft" }).click();
    await expect.poll(() => drawer.getByTestId("diff").textContent()).toContain("+ Be kind and brief.");
    await version.getByRole("button", { name: "Restore…" }).click();
    await drawer.getByRole("button", { name: "Restore version 1" }).click();
    await expect.poll(() => instructions.inputValue()).toBe("Be kind.");
    expect((await api<{ instructions: string }>(`/api/agents/${agent.id}`)).instructions).toBe("Be kind.");
    await page.getByTestId("toast").getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => instructions.inputValue()).toBe("Be kind and brief.");

    // Saved, it leaves without asking.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workflows" }).click();
    await page.waitForURL(/\/workflows$/);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("app settings", () => {
  it("an app's settings save on the revision they were opened at; a rotated secret is no conflict, another save is", async () => {
    const agent = await api<{ id: string }>("/api/agents", {
      method: "POST",
      json: { name: "Front desk", provider: "openai", model: "gpt-4o-mini" },
    });
    const app = await api<{ id: string }>("/api/apps", { method: "POST", json: { agent_id: agent.id } });
    const { page, errors } = await newPage();
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${builder.url}/apps/${app.id}`);
    const settings = page.getByRole("form", { name: "App settings" });
    const title = settings.getByLabel("Title");
    await expect.poll(() => title.isVisible()).toBe(true);

    // Rotating the secret moves the app's revision but not its settings: saving still works.
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await expect.poll(() => page.getByTestId("end-user-secret").isVisible()).toBe(true);
    await title.fill("Desk");
    await settings.getByRole("button", { name: "Save settings" }).click();
    await expect.poll(() => settings.getByRole("status").textContent()).toBe("Saved.");

    // Someone else saves the settings: this save is refused, the edit kept, then overwrites on request.
    await api(`/api/apps/${app.id}`, { method: "PATCH", json: { title: "Their desk" } });
    await title.fill("My desk");
    await settings.getByRole("button", { name: "Save settings" }).click();
    const conflict = settings.getByTestId("settings-conflict");
    await expect.poll(() => conflict.isVisible()).toBe(true);
    expect(await title.inputValue()).toBe("My desk");
    expect((await api<{ title: string }>(`/api/apps/${app.id}`)).title).toBe("Their desk");
    await conflict.getByRole("button", { name: "Overwrite with mine" }).click();
    await expect.poll(() => conflict.count()).toBe(0);
    expect((await api<{ title: string }>(`/api/apps/${app.id}`)).title).toBe("My desk");
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe("import", () => {
  /** Drops a file on an element, as a person dragging it from their desktop does. */
  async function dropFile(page: Page, testId: string, name: string, text: string) {
    const transfer = await page.evaluateHandle(
      ([fileName, content]) => {
        const data = new DataTransfer();
        data.items.add(new File([content as string], fileName as string, { type: "application/json" }));
        return data;
      },
      [name, text],
    );
    await page.dispatchEvent(`[data-testid=${testId}]`, "dragover", { dataTransfer: transfer });
    await page.dispatchEvent(`[data-testid=${testId}]`, "drop", { dataTransfer: transfer });
  }

  it("imports a workflow file dropped on the workflows list, asking for the knowledge base it names", async () => {
    // Exported from another workspace, with a knowledge base this one has under another name.
    const other = await builder.signUp();
    const base = await builder.request("/api/knowledge-bases", {
      method: "POST",
      cookie: other.cookie,
      json: { name: "Handbook" },
    });
    const baseId = ((await base.json()) as { id: string }).id;
    const source = await builder.request("/api/workflows", {
      method: "POST",
      cookie: other.cookie,
      json: {
        name: "Answer from the handbook",
        graph: {
          nodes: [
            { id: "start", type: "start", position: { x: 0, y: 0 }, data: { inputs: [] } },
            {
              id: "ask",
              type: "llm",
              position: { x: 250, y: 0 },
              data: { provider: "openai", model: "gpt-4o-mini", prompt: "Hi", knowledge_base_ids: [baseId] },
            },
            {
              id: "done",
              type: "end",
              position: { x: 500, y: 0 },
              data: { outputs: [{ name: "a", value: "{{ask.text}}" }] },
            },
          ],
          edges: [
            { id: "e1", source: "start", target: "ask" },
            { id: "e2", source: "ask", target: "done" },
          ],
        },
      },
    });
    const sourceId = ((await source.json()) as { id: string }).id;
    const exported = await (
      await builder.request(`/api/workflows/${sourceId}/export`, { cookie: other.cookie })
    ).text();
    const manual = await api<{ id: string }>("/api/knowledge-bases", {
      method: "POST",
      json: { name: "Manual" },
    });

    const { page, errors } = await newPage();
    await page.goto(`${builder.url}/workflows`);
    await dropFile(page, "workflow-drop", "handbook.workflow.json", exported);
    const dialog = page.getByTestId("import-dialog");
    await expect.poll(() => dialog.textContent()).toContain("Choose what to use here");
    await dialog.getByLabel("Knowledge base: Handbook").selectOption({ label: "Manual" });
    expect(await a11yViolations(page)).toEqual([]);
    await screenshot(page, "import-dialog", { isDoc: true });
    await dialog.getByRole("button", { name: "Import workflow" }).click();
    await page.waitForURL(/\/workflows\/wf_/);
    const importedId = new URL(page.url()).pathname.split("/").at(-1) as string;
    const imported = await api<{
      name: string;
      graph: { nodes: { data: { knowledge_base_ids?: string[] } }[] };
    }>(`/api/workflows/${importedId}`);
    expect(imported.name).toBe("Answer from the handbook");
    expect(imported.graph.nodes[1]?.data.knowledge_base_ids).toEqual([manual.id]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("imports an n8n workflow dropped on the list; one with nodes that have no counterpart only with placeholders, when asked", async () => {
    const fixture = (name: string) =>
      readFileSync(
        new URL(`../../builder/src/portability/n8n/fixtures/${name}.json`, import.meta.url),
        "utf8",
      );
    const { page, errors } = await newPage();
    await page.goto(`${builder.url}/workflows`);
    await dropFile(page, "workflow-drop", "sales.json", fixture("unsupported-nodes"));
    const dialog = page.getByTestId("import-dialog");
    await expect.poll(() => dialog.textContent()).toContain('"Tell the team" (n8n-nodes-base.slack)');
    await dialog.getByRole("button", { name: "Import the rest, with placeholders" }).click();
    await expect
      .poll(() => dialog.getByRole("list", { name: "n8n nodes" }).textContent())
      .toContain("a placeholder to replace");
    await dialog.getByRole("button", { name: "Import workflow" }).click();
    await page.waitForURL(/\/workflows\/wf_/);
    await expect.poll(() => page.getByTestId("node-tell_the_team").isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
