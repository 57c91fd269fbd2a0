import { documentedOperations, type OpenApiDocument } from "@app/http/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBuilder, type TestBuilder } from "../../test/harness.ts";
import { ASSIGNABLE_ROLES, isAtLeast, REQUIRED_ROLE_EXTENSION, type RequiredRole } from "./roles.ts";

// The route × role matrix, generated from the OpenAPI document: every operation the role check
// guards is called by a member of each role too weak for it (403 forbidden_role), every read by a
// viewer (never refused for its role), and every operation by a member removed a moment before
// (404 workspace_not_found). A route added without thinking about roles is covered by its method's
// default and shows up here.

let builder: TestBuilder;
let document: OpenApiDocument;
let workspaceId: string;
const members: Record<string, { cookie: string; userId: string }> = {};
let removed: { cookie: string };
let apiKey: string;

type Operation = { method: string; path: string; required: RequiredRole };
let operations: Operation[] = [];

beforeAll(async () => {
  builder = await startTestBuilder({ env: { AUTH_SIGN_IN_PER_MINUTE: "100" } });
  const owner = await builder.signUp();
  const created = await builder.request("/api/workspaces", {
    method: "POST",
    cookie: owner.cookie,
    json: { name: "Matrix" },
  });
  workspaceId = ((await created.json()) as { id: string }).id;
  members.owner = owner;
  const join = async (role: string) => {
    const person = await builder.signUp();
    const invited = await builder.request("/api/invitations", {
      method: "POST",
      cookie: owner.cookie,
      headers: { "x-workspace-id": workspaceId },
      json: { email: person.email, role },
    });
    const { id } = (await invited.json()) as { id: string };
    const accepted = await builder.request(`/api/invitations/${id}/accept`, {
      method: "POST",
      cookie: person.cookie,
    });
    expect(accepted.status).toBe(200);
    return person;
  };
  for (const role of ASSIGNABLE_ROLES) members[role] = await join(role);
  const leaver = await join("admin");
  const deleted = await builder.request(`/api/members/${leaver.userId}`, {
    method: "DELETE",
    cookie: owner.cookie,
    headers: { "x-workspace-id": workspaceId },
  });
  expect(deleted.status).toBe(204);
  removed = leaver;
  const key = await builder.request("/api/keys", {
    method: "POST",
    cookie: owner.cookie,
    headers: { "x-workspace-id": workspaceId },
    json: { name: "matrix" },
  });
  apiKey = ((await key.json()) as { key: string }).key;

  document = (await (await builder.request("/api/openapi.json")).json()) as OpenApiDocument;
  operations = documentedOperations(document).flatMap((operation) => {
    const required = (operation.operation as Record<string, unknown>)[REQUIRED_ROLE_EXTENSION] as
      | RequiredRole
      | undefined;
    return required ? [{ method: operation.method.toUpperCase(), path: operation.template, required }] : [];
  });
}, 120_000);
afterAll(() => builder?.stop());

/** The operation's path with every parameter filled (the role check answers before any lookup). */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, "x");

async function call(operation: Operation, cookie: string) {
  const response = await builder.request(concrete(operation.path), {
    method: operation.method,
    cookie,
    headers: { "x-workspace-id": workspaceId },
  });
  const text = await response.text();
  return {
    status: response.status,
    code: text.startsWith("{") ? (JSON.parse(text) as { error?: { code?: string } }).error?.code : undefined,
  };
}

describe("the route × role matrix", () => {
  it("covers every guarded operation of the document", () => {
    expect(operations.length).toBeGreaterThan(100);
    expect(
      operations
        .filter((o) => o.required === "account")
        .map((o) => `${o.method} ${o.path}`)
        .sort(),
    ).toEqual([
      "GET /api/invitations/{id}",
      "GET /api/workspaces",
      "POST /api/invitations/{id}/accept",
      "POST /api/workspaces",
      "POST /api/workspaces/{id}/activate",
    ]);
    // Reads are for everyone; every write needs more than a viewer, save the two read-only POSTs.
    for (const operation of operations.filter((o) => o.required !== "account")) {
      const isRead = operation.method === "GET";
      const isReadOnlyPost = ["/api/knowledge-bases/{id}/search", "/api/workflows/validate"].includes(
        operation.path,
      );
      if (isRead || isReadOnlyPost)
        expect(operation.required, `${operation.method} ${operation.path}`).not.toBe("owner");
      else expect(operation.required, `${operation.method} ${operation.path}`).not.toBe("viewer");
    }
  });

  it("refuses every role weaker than an operation needs with 403 forbidden_role", {
    timeout: 120_000,
  }, async () => {
    const wrong: string[] = [];
    for (const operation of operations) {
      if (operation.required === "account") continue;
      for (const role of ASSIGNABLE_ROLES) {
        if (isAtLeast(role, operation.required)) continue;
        const { status, code } = await call(operation, members[role]?.cookie ?? "");
        if (status !== 403 || code !== "forbidden_role")
          wrong.push(`${role}: ${operation.method} ${operation.path} → ${status} ${code}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("lets a viewer make every read", { timeout: 120_000 }, async () => {
    const refused: string[] = [];
    for (const operation of operations.filter((o) => o.method === "GET" && o.required === "viewer")) {
      const { status, code } = await call(operation, members.viewer?.cookie ?? "");
      if (status === 403 || code === "workspace_not_found")
        refused.push(`${operation.method} ${operation.path} → ${status} ${code}`);
    }
    expect(refused).toEqual([]);
  });

  it("shuts a removed member out of every operation at once", { timeout: 120_000 }, async () => {
    const open: string[] = [];
    for (const operation of operations.filter((o) => o.required !== "account")) {
      const { status, code } = await call(operation, removed.cookie);
      if (status !== 404 || code !== "workspace_not_found")
        open.push(`${operation.method} ${operation.path} → ${status} ${code}`);
    }
    expect(open).toEqual([]);
  });

  it("keeps API keys off the account operations", async () => {
    for (const operation of operations.filter((o) => o.required === "account")) {
      const response = await builder.request(concrete(operation.path), {
        method: operation.method,
        bearer: apiKey,
      });
      expect(response.status, `${operation.method} ${operation.path}`).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: "session_required" } });
    }
  });
});
