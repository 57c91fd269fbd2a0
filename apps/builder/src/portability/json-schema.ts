import { z } from "@hono/zod-openapi";
import { agentToolSchema } from "../agents/contract.ts";
import { graphSchema } from "../workflows/contract.ts";
import {
  agentDocumentSchema,
  exportedReferenceSchema,
  redactedFieldSchema,
  workflowDocumentSchema,
  workflowDocumentV1Schema,
} from "./contract.ts";

/** Where the builder serves the JSON Schema of its export documents (no sign-in needed). */
export const EXPORT_SCHEMA_PATH = "/api/schemas/export.json";

let built: Record<string, unknown> | undefined;

/**
 * The JSON Schema (2020-12) of the export format: a `builder.workflow` (version 2, or the older 1)
 * or a `builder.agent` document, generated from the definitions the import validates with, so the
 * two cannot drift. docs/export-format.schema.json is this, written by `npm run export-schema`.
 *
 * @example const schema = exportJsonSchema(); schema.title // "Builder export document"
 */
export function exportJsonSchema(): Record<string, unknown> {
  if (built) return built;
  const names = z.registry<{ id: string; description?: string }>();
  names.add(workflowDocumentSchema, {
    id: "WorkflowDocument",
    description:
      "builder.workflow, version 2: a workflow with its references (GET /api/workflows/{id}/export)",
  });
  names.add(workflowDocumentV1Schema, {
    id: "WorkflowDocumentV1",
    description: "builder.workflow, version 1: a workflow alone, as exports before version 2 wrote it",
  });
  names.add(agentDocumentSchema, {
    id: "AgentDocument",
    description: "builder.agent, version 1: an agent with its references (GET /api/agents/{id}/export)",
  });
  names.add(graphSchema, { id: "WorkflowGraph" });
  names.add(agentToolSchema, { id: "AgentTool" });
  names.add(exportedReferenceSchema, {
    id: "Reference",
    description:
      "A thing of the exporting workspace the definition uses by `id`; the import points each use at this workspace's counterpart (by the request's mapping, the same id, or the same kind and name)",
  });
  names.add(redactedFieldSchema, {
    id: "RedactedField",
    description: "A field the export emptied because it looked like a secret",
  });
  built = {
    ...z.toJSONSchema(z.union([workflowDocumentSchema, workflowDocumentV1Schema, agentDocumentSchema]), {
      target: "draft-2020-12",
      io: "input",
      unrepresentable: "any",
      metadata: names,
    }),
    title: "Builder export document",
    description:
      "A workflow (format builder.workflow) or an agent (format builder.agent) as the builder exports it: the definition, the things of its workspace it uses by kind and name (references), and the fields left out as secrets (redacted). See docs/history-and-import.md.",
  };
  return built;
}
