import { startTestSmtpServer, type TestSmtpServer } from "@app/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../builder/test/harness.ts";
import { collectPageErrors, launchBrowser, screenshot, signIn } from "./browser.ts";

// A team in the studio: the owner invites a teammate as a viewer from the Members screen, the
// teammate signs up from the e-mail's link and accepts, sees the shared work without edit controls,
// and switches back to their own workspace, where they can build.

let smtp: TestSmtpServer;
let builder: TestBuilder;
let browser: Browser;
let owner: Page;
let mate: Page;
let pageErrors: string[];
let workspaceId: string;
const MATE_EMAIL = "teammate@example.com";

beforeAll(async () => {
  smtp = await startTestSmtpServer();
  builder = await startTestBuilder({ env: { SMTP_URL: smtp.url } });
  const { cookie } = await builder.signUp("owner@example.com", "correct horse battery");
  const created = await builder.request("/api/workspaces", {
    method: "POST",
    cookie,
    json: { name: "Acme" },
  });
  workspaceId = ((await created.json()) as { id: string }).id;
  const inAcme = { cookie, headers: { "x-workspace-id": workspaceId } };
  await builder.request("/api/agents", {
    method: "POST",
    ...inAcme,
    json: { name: "Acme support agent", provider: "openai", model: "gpt-4o-mini" },
  });
  browser = await launchBrowser();
  owner = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  pageErrors = collectPageErrors(owner);
  await signIn(owner.context(), cookie, builder.url);
  mate = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  pageErrors.push(...collectPageErrors(mate));
});
afterAll(async () => {
  await browser?.close();
  await builder?.stop();
  await smtp?.close();
});

describe("a team in the studio", () => {
  it("switches the owner to the shared workspace and invites a teammate as a viewer", async () => {
    await owner.goto(`${builder.url}/agents`);
    const switcher = owner.getByRole("combobox", { name: "Workspace" });
    await switcher.selectOption({ label: "Acme (owner)" });
    await owner.getByRole("link", { name: "Acme support agent" }).waitFor();

    await owner.getByRole("link", { name: "Members" }).click();
    await owner.getByRole("heading", { name: "Members of Acme" }).waitFor();
    const invite = owner.getByRole("form", { name: "Invite someone" });
    await invite.getByLabel("E-mail").fill(MATE_EMAIL);
    await invite.getByLabel("Role").selectOption("viewer");
    await invite.getByRole("button", { name: "Invite" }).click();
    await owner
      .getByRole("status")
      .filter({ hasText: `Invitation sent to ${MATE_EMAIL}` })
      .waitFor();
    await owner.getByTestId("invitation-row").filter({ hasText: MATE_EMAIL }).waitFor();
    await screenshot(owner, "members", { isDoc: true });
  });

  it("lets the teammate sign up from the e-mail's link and accept", async () => {
    const mail = await smtp.waitFor(MATE_EMAIL);
    expect(mail.subject).toMatch(/ invited you to Acme on Builder$/);
    const link = mail.links[0] ?? "";
    expect(new URL(link).pathname).toMatch(/^\/invitations\/inv_/);

    await mate.goto(link);
    await mate.getByRole("heading", { name: "You are invited" }).waitFor();
    await mate.getByRole("link", { name: "Create an account" }).click();
    const form = mate.getByRole("form", { name: "Sign up" });
    await form.getByLabel("Name").fill("Tess Mate");
    await form.getByLabel("E-mail").fill(MATE_EMAIL);
    await form.getByLabel("Password").fill("another good password");
    await form.getByRole("button", { name: "Sign up" }).click();

    await mate.getByRole("heading", { name: "Join Acme" }).waitFor();
    await mate.getByText("as viewer").waitFor();
    await mate.getByRole("button", { name: "Accept and open the workspace" }).click();
    await mate.getByRole("link", { name: "Acme support agent" }).waitFor();
    expect(await mate.getByRole("combobox", { name: "Workspace" }).inputValue()).toBe(workspaceId);
    await mate.getByTestId("current-role").filter({ hasText: "You are a viewer" }).waitFor();
  });

  it("shows a viewer the work without edit controls or secrets", async () => {
    expect(await mate.getByRole("button", { name: "New agent" }).count()).toBe(0);
    await mate.getByRole("link", { name: "Acme support agent" }).click();
    await mate.getByRole("form", { name: "Agent" }).waitFor();
    expect(await mate.getByRole("button", { name: "Delete" }).count()).toBe(0);
    expect(await mate.getByRole("button", { name: /^Save/ }).count()).toBe(0);

    await mate.getByRole("link", { name: "Workflows" }).click();
    await mate.getByRole("heading", { name: "Workflows", exact: true, level: 1 }).waitFor();
    expect(await mate.getByRole("button", { name: /New workflow|Import|Use template/ }).count()).toBe(0);

    await mate.getByRole("link", { name: "Settings" }).click();
    await mate.getByRole("heading", { name: "API keys", exact: true, level: 2 }).waitFor();
    expect(await mate.getByRole("button", { name: /Create key|Add credential/ }).count()).toBe(0);

    await mate.getByRole("link", { name: "Members" }).click();
    await mate.getByTestId("member-row").filter({ hasText: "owner@example.com" }).waitFor();
    expect(await mate.getByRole("form", { name: "Invite someone" }).count()).toBe(0);
    expect(await mate.getByRole("button", { name: /Remove/ }).count()).toBe(0);
    await screenshot(mate, "members-as-viewer");
  });

  it("switches the teammate to their own workspace, where they build", async () => {
    await mate.getByRole("link", { name: "Agents" }).click();
    const switcher = mate.getByRole("combobox", { name: "Workspace" });
    await switcher.selectOption({ label: "Tess Mate's workspace (owner)" });
    await mate.getByRole("button", { name: "New agent" }).waitFor();
    expect(await mate.getByRole("link", { name: "Acme support agent" }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
