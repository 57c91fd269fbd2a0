import { createRouter, errorResponses, idParam, jsonContent, validationHook } from "@app/http";
import type { WorkflowGraph } from "@app/workflow";
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { toAgentJson } from "../agents/agent-json.ts";
import { agentAtVersion, findAgentVersion } from "../agents/agent-versions.ts";
import { checkAgentReferences } from "../agents/check-agent-references.ts";
import { createAgent } from "../agents/create-agent.ts";
import { AgentErrors } from "../agents/errors.ts";
import { findAgent } from "../agents/find-agent.ts";
import { agentSnapshot } from "../agents/publish-agent.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv } from "../env.ts";
import { versionToRun } from "../versions/contract.ts";
import { VersionErrors } from "../versions/errors.ts";
import { etagOf } from "../versions/revisions.ts";
import { createWorkflow } from "../workflows/create-workflow.ts";
import { WorkflowErrors } from "../workflows/errors.ts";
import { findWorkflow } from "../workflows/find-workflow.ts";
import { toWorkflowJson } from "../workflows/workflow-json.ts";
import { workflowToRun } from "../workflows/workflow-versions.ts";
import {
  agentDocumentSchema,
  agentImportBody,
  exportQuery,
  importedAgentSchema,
  importedWorkflowSchema,
  importPreviewSchema,
  importQuery,
  workflowDocumentSchema,
  workflowImportBody,
} from "./contract.ts";
import { agentDocument, workflowDocument } from "./export-document.ts";
import { EXPORT_SCHEMA_PATH, exportJsonSchema } from "./json-schema.ts";
import { prepareAgentImport, prepareWorkflowImport } from "./prepare-import.ts";
import { readAgentImport, readWorkflowImport } from "./read-document.ts";

const IMPORT_DESCRIPTION =
  "The body is a document as exported (or, with options, `{ document, references, name }`). Each reference " +
  "(knowledge base, credential, workflow, agent, MCP server) is pointed at this workspace's: by `references` " +
  "(its id in the document → an id here), else the same id, else the only one of its kind with the same name; " +
  "the others are listed in `import_report.references.unresolved` (the import still succeeds). A malformed " +
  "document, or one of a newer version, answers 422 naming the path of the first problem. The JSON Schema of " +
  `the documents is at ${EXPORT_SCHEMA_PATH}.`;

const workflowRoutes = {
  export: createRoute({
    method: "get",
    path: "/workflows/{id}/export",
    tags: ["workflows"],
    summary: "Export a workflow (the draft, or a version) as a portable document",
    description:
      "The definition without secrets (inline HTTP secrets become credential references; secret-looking header and query values are emptied and listed in `redacted`), and the knowledge bases, credentials, workflows, agents and MCP servers it uses by kind and name.",
    request: { params: idParam, query: exportQuery },
    responses: {
      200: { description: "The document", content: jsonContent(workflowDocumentSchema) },
      ...errorResponses(401, 404, 422),
    },
  }),
  import: createRoute({
    method: "post",
    path: "/workflows/import",
    tags: ["workflows"],
    summary: "Create a workflow from an exported document or an n8n workflow",
    description: `${IMPORT_DESCRIPTION} An n8n workflow (its JSON as n8n's Download writes it) is converted: nodes with no counterpart refuse the import (422 listing each) unless \`?partial=true\`.`,
    request: { query: importQuery, body: { required: true, content: jsonContent(workflowImportBody) } },
    responses: {
      201: {
        description: "The new workflow and the import's report",
        content: jsonContent(importedWorkflowSchema),
      },
      ...errorResponses(400, 401, 413, 422),
    },
  }),
  preview: createRoute({
    method: "post",
    path: "/workflows/import/preview",
    tags: ["workflows"],
    summary: "What importing a document would do, without creating anything",
    description:
      "The same body and checks as the import; answers its report (for choosing unresolved references).",
    request: { query: importQuery, body: { required: true, content: jsonContent(workflowImportBody) } },
    responses: {
      200: { description: "The report", content: jsonContent(importPreviewSchema) },
      ...errorResponses(400, 401, 413, 422),
    },
  }),
};

const agentRoutes = {
  export: createRoute({
    method: "get",
    path: "/{id}/export",
    tags: ["agents"],
    summary: "Export an agent (the draft, or a version) as a portable document",
    description:
      "The definition without secrets (secret-looking header values of HTTP tools are emptied and listed in `redacted`), and the knowledge bases, workflows and MCP servers it uses by kind and name.",
    request: { params: idParam, query: exportQuery },
    responses: {
      200: { description: "The document", content: jsonContent(agentDocumentSchema) },
      ...errorResponses(401, 404, 422),
    },
  }),
  import: createRoute({
    method: "post",
    path: "/import",
    tags: ["agents"],
    summary: "Create an agent from an exported document",
    description: IMPORT_DESCRIPTION,
    request: { body: { required: true, content: jsonContent(agentImportBody) } },
    responses: {
      201: {
        description: "The new agent and the import's report",
        content: jsonContent(importedAgentSchema),
      },
      ...errorResponses(400, 401, 413, 422),
    },
  }),
  preview: createRoute({
    method: "post",
    path: "/import/preview",
    tags: ["agents"],
    summary: "What importing an agent document would do, without creating anything",
    request: { body: { required: true, content: jsonContent(agentImportBody) } },
    responses: {
      200: { description: "The report", content: jsonContent(importPreviewSchema) },
      ...errorResponses(400, 401, 413, 422),
    },
  }),
};

/**
 * The body check of the import routes: a body the documented union refuses gets the 422 of its
 * first problem from the reader (its kind, its version, the path of the bad field), not a union's.
 */
function importHook(read: (body: unknown) => unknown): never {
  const hook = (
    result: { target: string } & ({ success: true } | { success: false; error: z.ZodError }),
    c: Context<AppEnv>,
  ) => {
    if (!result.success && result.target === "json") read((result as { data?: unknown }).data);
    validationHook(result as Parameters<typeof validationHook>[0], c);
  };
  return hook as never;
}

/** `Content-Disposition` of a downloaded document: the name as a file name. */
function attachment(name: string, fallback: string, kind: string): string {
  const base =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80) || fallback;
  return `attachment; filename="${base}.${kind}.json"`;
}

/**
 * Export, import and import preview of workflows, on the workflows router (`/api/workflows/…`).
 * `checkGraph` is the router's own check of a graph before it is saved.
 *
 * @example registerWorkflowPortabilityRoutes(router, deps, checkGraph);
 */
export function registerWorkflowPortabilityRoutes(
  router: OpenAPIHono<AppEnv>,
  deps: Deps,
  checkGraph: (c: Context<AppEnv>, graph: WorkflowGraph) => Promise<void>,
): void {
  const urls = { publicUrl: deps.config.publicUrl, secretKey: deps.config.secretKey };
  router.openapi(workflowRoutes.export, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const row = await findWorkflow(deps.db, workspaceId, c.req.valid("param").id);
    if (!row) throw WorkflowErrors.WORKFLOW_NOT_FOUND();
    const chosen = await workflowToRun(deps.db, row, c.req.valid("query").version);
    if (chosen === "version_not_found") throw VersionErrors.VERSION_NOT_FOUND({ param: "version" });
    c.header("Content-Disposition", attachment(row.name, row.id, "workflow"));
    return c.json(await workflowDocument(deps.db, workspaceId, chosen.workflow, deps.config.publicUrl), 200);
  });
  const prepare = async (c: Context<AppEnv>, body: unknown, partial: boolean) => {
    const workspaceId = c.get("principal").workspaceId;
    const prepared = await prepareWorkflowImport(deps.db, workspaceId, readWorkflowImport(body), { partial });
    await checkGraph(c, prepared.graph);
    return prepared;
  };
  router.openapi(
    workflowRoutes.import,
    async (c) => {
      const prepared = await prepare(c, c.req.valid("json"), c.req.valid("query").partial === "true");
      const row = await createWorkflow(deps, c.get("principal").workspaceId, prepared);
      c.header("ETag", etagOf(row));
      return c.json({ ...toWorkflowJson(row, urls), import_report: prepared.report }, 201);
    },
    importHook(readWorkflowImport),
  );
  router.openapi(
    workflowRoutes.preview,
    async (c) => {
      const prepared = await prepare(c, c.req.valid("json"), c.req.valid("query").partial === "true");
      return c.json({ name: prepared.name, import_report: prepared.report }, 200);
    },
    importHook(readWorkflowImport),
  );
}

/**
 * Export, import and import preview of agents, on the agents router (`/api/agents/…`).
 *
 * @example registerAgentPortabilityRoutes(router, deps);
 */
export function registerAgentPortabilityRoutes(router: OpenAPIHono<AppEnv>, deps: Deps): void {
  router.openapi(agentRoutes.export, async (c) => {
    const workspaceId = c.get("principal").workspaceId;
    const row = await findAgent(deps.db, workspaceId, c.req.valid("param").id);
    if (!row) throw AgentErrors.AGENT_NOT_FOUND();
    const number = versionToRun(row, c.req.valid("query").version);
    let agent = row;
    if (number !== undefined) {
      const version = await findAgentVersion(deps.db, workspaceId, row.id, number);
      if (!version) throw VersionErrors.VERSION_NOT_FOUND({ param: "version" });
      agent = agentAtVersion(row, version);
    }
    c.header("Content-Disposition", attachment(agent.name, row.id, "agent"));
    return c.json(
      await agentDocument(deps.db, workspaceId, agentSnapshot(agent), deps.config.publicUrl),
      200,
    );
  });
  const prepare = async (c: Context<AppEnv>, body: unknown) => {
    const workspaceId = c.get("principal").workspaceId;
    const prepared = await prepareAgentImport(deps.db, workspaceId, readAgentImport(body));
    await checkAgentReferences(deps, workspaceId, prepared.input);
    return prepared;
  };
  router.openapi(
    agentRoutes.import,
    async (c) => {
      const prepared = await prepare(c, c.req.valid("json"));
      const row = await createAgent(deps, c.get("principal").workspaceId, prepared.input);
      c.header("ETag", etagOf(row));
      return c.json({ ...toAgentJson(row), import_report: prepared.report }, 201);
    },
    importHook(readAgentImport),
  );
  router.openapi(
    agentRoutes.preview,
    async (c) => {
      const prepared = await prepare(c, c.req.valid("json"));
      return c.json({ name: prepared.input.name, import_report: prepared.report }, 200);
    },
    importHook(readAgentImport),
  );
}

const schemaRoute = createRoute({
  method: "get",
  path: "/export.json",
  tags: ["workflows"],
  summary: "The JSON Schema of exported workflow and agent documents",
  description:
    "Public (no sign-in). Exports name it in their `$schema`; docs/export-format.schema.json is the same schema.",
  security: [],
  responses: {
    200: {
      description: "A JSON Schema (draft 2020-12)",
      content: jsonContent(z.record(z.string(), z.unknown()).openapi("JsonSchema")),
    },
  },
});

/**
 * The export format's JSON Schema, at /api/schemas/export.json (mounted under /api/schemas).
 *
 * @example app.route("/api/schemas", exportSchemaRoutes());
 */
export function exportSchemaRoutes() {
  const router = createRouter<AppEnv>();
  router.openapi(schemaRoute, (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(exportJsonSchema(), 200);
  });
  return router;
}
