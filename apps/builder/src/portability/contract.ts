// The portable documents of export and import (docs/history-and-import.md): a workflow's or an
// agent's definition, with the things it uses from its workspace (knowledge bases, credentials,
// other workflows and agents, MCP servers) named by kind and name, and no secrets. The JSON Schema
// served at /api/schemas/export.json and kept in docs/ is generated from these definitions, so the
// import validates by the schema it publishes.
import { z } from "@hono/zod-openapi";
import { agentSchema, createAgentBody } from "../agents/contract.ts";
import { graphSchema, workflowSchema } from "../workflows/contract.ts";

export const WORKFLOW_FORMAT = "builder.workflow";
export const AGENT_FORMAT = "builder.agent";
/** The newest version of each format this server writes and reads (it reads every older one too). */
export const WORKFLOW_FORMAT_VERSION = 2;
export const AGENT_FORMAT_VERSION = 1;

export const REFERENCE_KINDS = ["knowledge_base", "credential", "workflow", "agent", "mcp_server"] as const;
export type ReferenceKind = (typeof REFERENCE_KINDS)[number];

export const referenceKindSchema = z.enum(REFERENCE_KINDS);

/** A thing of the exporting workspace the definition uses, by the id it has there and its name. */
export const exportedReferenceSchema = z
  .strictObject({
    kind: referenceKindSchema,
    id: z.string().min(1).max(64).openapi({
      description:
        "The id the definition uses for it (the exporting workspace's); the import replaces it wherever it appears",
    }),
    name: z.string().max(200).nullable().openapi({
      description: "Its name, by which the import finds its counterpart; null when it was missing",
    }),
    provider: z.string().max(100).optional().openapi({
      description: "A credential's provider (`http`, `openai`, …), to tell same-named ones apart",
    }),
    inline_secret: z.boolean().optional().openapi({
      description:
        "A secret the definition held inline (an HTTP node's token, password or key value): left out of the document; choose a stored credential for it when importing",
    }),
  })
  .openapi("ExportedReference");

export type ExportedReference = z.infer<typeof exportedReferenceSchema>;

/** A field the export emptied because it looked like a secret (an Authorization header's value…). */
export const redactedFieldSchema = z
  .strictObject({
    path: z.string().max(500).openapi({ example: "graph.nodes[2].data.headers.Authorization" }),
    reason: z.string().max(500),
  })
  .openapi("RedactedField");

const schemaUrl = z
  .string()
  .max(2048)
  .optional()
  .openapi({ description: "The JSON Schema of the format (editors use it); ignored by the import" });

/** Version 1 of `builder.workflow`: the definition alone, no references (still read). */
export const workflowDocumentV1Schema = z
  .strictObject({
    $schema: schemaUrl,
    format: z.literal(WORKFLOW_FORMAT),
    version: z.literal(1),
    name: z.string().trim().min(1).max(200),
    description: z.string().max(5000).default(""),
    graph: graphSchema,
  })
  .openapi("WorkflowExportV1", {
    description: "Version 1 of builder.workflow (no references); still imported",
  });

export const workflowDocumentSchema = z
  .strictObject({
    $schema: schemaUrl,
    format: z.literal(WORKFLOW_FORMAT),
    version: z.literal(WORKFLOW_FORMAT_VERSION),
    name: z.string().trim().min(1).max(200),
    description: z.string().max(5000).default(""),
    graph: graphSchema,
    references: z.array(exportedReferenceSchema).max(4000).default([]),
    redacted: z.array(redactedFieldSchema).max(4000).default([]),
  })
  .openapi("WorkflowExport", {
    description:
      "A workflow as GET /api/workflows/{id}/export writes it: the definition, and what it uses from its workspace by kind and name",
  });

const agentFields = createAgentBody.shape;

export const agentDocumentSchema = z
  .strictObject({
    $schema: schemaUrl,
    format: z.literal(AGENT_FORMAT),
    version: z.literal(AGENT_FORMAT_VERSION),
    name: agentFields.name,
    description: agentFields.description,
    provider: agentFields.provider,
    model: agentFields.model,
    instructions: agentFields.instructions,
    temperature: agentFields.temperature,
    tools: agentFields.tools,
    knowledge_base_ids: agentFields.knowledge_base_ids,
    memory_turns: agentFields.memory_turns,
    references: z.array(exportedReferenceSchema).max(200).default([]),
    redacted: z.array(redactedFieldSchema).max(200).default([]),
  })
  .openapi("AgentExport", {
    description:
      "An agent as GET /api/agents/{id}/export writes it: the definition, and what it uses from its workspace by kind and name",
  });

export type WorkflowDocument = z.infer<typeof workflowDocumentSchema>;
export type WorkflowDocumentV1 = z.infer<typeof workflowDocumentV1Schema>;
export type AgentDocument = z.infer<typeof agentDocumentSchema>;

// n8n's own export ("Download" in its editor), as far as the import reads it; n8n writes many more
// fields (meta, pinData, settings, versionId, tags…), all allowed and most ignored.
const n8nNodeSchema = z
  .object({
    name: z.string().min(1).max(500),
    type: z.string().min(1).max(300),
    typeVersion: z.number().optional(),
    position: z.array(z.number()).max(2).optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    credentials: z.record(z.string(), z.unknown()).optional(),
    disabled: z.boolean().optional(),
  })
  .catchall(z.unknown())
  .openapi("N8nNode");

export const n8nWorkflowSchema = z
  .object({
    name: z.string().max(500).optional(),
    nodes: z.array(n8nNodeSchema).max(1000),
    connections: z.record(z.string(), z.unknown()),
  })
  .catchall(z.unknown())
  .openapi("N8nWorkflow", {
    description:
      "An n8n workflow as its editor's Download writes it (nodes and connections); see docs/history-and-import.md for what maps to what",
  });

export type N8nWorkflow = z.infer<typeof n8nWorkflowSchema>;
export type N8nNode = z.infer<typeof n8nNodeSchema>;

/** Where each reference should point in this workspace: its id in the document → an id here, or null. */
const referenceMapping = z.record(z.string().max(64), z.string().max(64).nullable()).openapi({
  description:
    "A reference's id in the document → the id of this workspace's thing of the same kind to use instead (null: leave it unresolved). References not listed are found by id, then by name.",
  example: { kb_01jd3k6n0p7q8r9s0t1v2w3x4y: "kb_01jq9z8y7x6w5v4t3s2r1q0p9n" },
});

const envelope = <T extends z.ZodType>(document: T, name: string) =>
  z
    .strictObject({
      document,
      references: referenceMapping.optional(),
      name: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .optional()
        .openapi({ description: "Name the copy this instead" }),
    })
    .openapi(name, { description: "A document with import options" });

export const workflowImportEnvelopeSchema = envelope(
  z.union([workflowDocumentSchema, workflowDocumentV1Schema, n8nWorkflowSchema]),
  "WorkflowImportRequest",
);
export const agentImportEnvelopeSchema = envelope(agentDocumentSchema, "AgentImportRequest");

/** The body of `POST /api/workflows/import`: a document as exported (ours or n8n's), or one with options. */
export const workflowImportBody = z.union([
  workflowDocumentSchema,
  workflowDocumentV1Schema,
  workflowImportEnvelopeSchema,
  n8nWorkflowSchema,
]);

export const agentImportBody = z.union([agentDocumentSchema, agentImportEnvelopeSchema]);

/** `?partial=true` of an n8n import: import what maps, list the rest, instead of refusing. */
export const importQuery = z.object({
  partial: z
    .enum(["true", "false"])
    .optional()
    .openapi({
      param: { name: "partial", in: "query" },
      description:
        "n8n only: import the nodes that have a counterpart (the others become labelled placeholders or are listed) instead of refusing the whole workflow",
    }),
});

export const resolvedReferenceSchema = z
  .object({
    kind: referenceKindSchema,
    id: z.string().openapi({ description: "Its id in the document" }),
    name: z.string().nullable(),
    resolved_id: z.string().openapi({ description: "The id of this workspace's thing used instead" }),
    resolved_by: z.enum(["mapping", "id", "name"]).openapi({
      description:
        "mapping: the request's `references`; id: this workspace has the same id (same install); name: the only one of its kind with that name",
    }),
    paths: z.array(z.string()).openapi({ description: "Where the definition uses it" }),
  })
  .openapi("ResolvedReference");

export const unresolvedReferenceSchema = z
  .object({
    kind: referenceKindSchema,
    id: z.string(),
    name: z.string().nullable(),
    provider: z.string().optional(),
    inline_secret: z.boolean().optional(),
    reason: z.string(),
    action: z.enum(["removed", "cleared", "kept"]).openapi({
      description:
        "What the import did where it was used: removed it from its list, cleared the field (the node fails until it is set), or kept the id (a credential: the node fails with credential_unavailable until one is chosen)",
    }),
    paths: z.array(z.string()),
  })
  .openapi("UnresolvedReference");

export const n8nNodeReportSchema = z
  .object({
    name: z.string(),
    type: z.string(),
    outcome: z.enum(["mapped", "placeholder", "skipped", "ignored"]).openapi({
      description:
        "mapped: became node_id; placeholder: has no counterpart and became a labelled Code node that fails until replaced; skipped: has no counterpart and was left out; ignored: has no effect on a run (a sticky note, a disabled or no-op node)",
    }),
    node_id: z.string().nullable(),
    node_type: z.string().nullable().openapi({ description: "The node type it became" }),
    reason: z.string().optional(),
    warnings: z.array(z.string()).optional(),
  })
  .openapi("N8nNodeReport");

export const importReportSchema = z
  .object({
    source: z.object({
      format: z.string().openapi({ example: WORKFLOW_FORMAT }),
      version: z.number().int().nullable(),
    }),
    references: z.object({
      resolved: z.array(resolvedReferenceSchema),
      unresolved: z.array(unresolvedReferenceSchema),
    }),
    redacted: z.array(redactedFieldSchema).openapi({
      description: "Fields the export emptied because they looked like secrets: fill them in",
    }),
    n8n: z
      .object({ nodes: z.array(n8nNodeReportSchema) })
      .optional()
      .openapi({ description: "An n8n import: what became of each of its nodes" }),
    warnings: z.array(z.string()),
  })
  .openapi("ImportReport");

export type ImportReport = z.infer<typeof importReportSchema>;

export const importedWorkflowSchema = workflowSchema
  .extend({ import_report: importReportSchema })
  .openapi("ImportedWorkflow");
export const importedAgentSchema = agentSchema
  .extend({ import_report: importReportSchema })
  .openapi("ImportedAgent");

export const importPreviewSchema = z
  .object({
    name: z.string().openapi({ description: "The name the import would give it" }),
    import_report: importReportSchema,
  })
  .openapi("ImportPreview");

/** `?version=` of an export: a version number, `published`, or absent for the draft. */
export const exportQuery = z.object({
  version: z
    .union([z.literal("published"), z.coerce.number().int().min(1).max(2_147_483_647)])
    .optional()
    .openapi({
      param: { name: "version", in: "query" },
      description: 'A published version\'s number, or "published" for the newest; absent: the draft',
    }),
});
