// Reads an import's body: which kind of document it is (ours, an older version of ours, n8n's, or
// one wrapped with options), and the first problem of a malformed one as a 422 naming its path.
import { type ApiError, validationError } from "@app/http";
import { z } from "@hono/zod-openapi";
import {
  AGENT_FORMAT,
  AGENT_FORMAT_VERSION,
  type AgentDocument,
  agentDocumentSchema,
  type N8nWorkflow,
  n8nWorkflowSchema,
  WORKFLOW_FORMAT,
  WORKFLOW_FORMAT_VERSION,
  type WorkflowDocument,
  type WorkflowDocumentV1,
  workflowDocumentSchema,
  workflowDocumentV1Schema,
} from "./contract.ts";
import { ImportErrors } from "./errors.ts";

/** What an import asks for besides the document. */
export interface ImportOptions {
  /** A reference's id in the document → this workspace's id (null: leave it unresolved). */
  mapping: Record<string, string | null>;
  name: string | undefined;
}

export type WorkflowImport =
  | ({ kind: "builder"; document: WorkflowDocument | WorkflowDocumentV1 } & ImportOptions)
  | ({ kind: "n8n"; document: N8nWorkflow } & ImportOptions);

export type AgentImport = { kind: "builder"; document: AgentDocument } & ImportOptions;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const optionsSchema = z.strictObject({
  document: z.unknown(),
  references: z.record(z.string().max(64), z.string().max(64).nullable()).optional(),
  name: z.string().trim().min(1).max(200).optional(),
});

/** The envelope's options, and the document inside it (or the body itself when it is a bare document). */
function unwrap(body: unknown): { document: unknown; prefix: (string | number)[]; options: ImportOptions } {
  if (isRecord(body) && "document" in body && !("format" in body) && !("nodes" in body)) {
    const parsed = optionsSchema.safeParse(body);
    if (!parsed.success) throw validationError(parsed.error, "body");
    return {
      document: parsed.data.document,
      prefix: ["document"],
      options: { mapping: parsed.data.references ?? {}, name: parsed.data.name },
    };
  }
  return { document: body, prefix: [], options: { mapping: {}, name: undefined } };
}

function parseAt<T>(schema: z.ZodType<T>, value: unknown, prefix: (string | number)[]): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => ({ ...issue, path: [...prefix, ...issue.path] }));
  throw validationError(new z.ZodError(issues), "document");
}

const at = (prefix: (string | number)[], field: string) => [...prefix, field].join(".");

/** The version a builder document says it is, refused when it is newer than `newest` (422, path `version`). */
function checkVersion(
  document: Record<string, unknown>,
  format: string,
  newest: number,
  prefix: (string | number)[],
): void {
  const version = document.version;
  if (typeof version === "number" && Number.isInteger(version) && version > newest) {
    throw ImportErrors.UNSUPPORTED_FORMAT_VERSION({
      message: `This document is version ${version} of ${format}; this server reads versions up to ${newest}. Import it on a newer builder, or export it again from one that writes version ${newest}.`,
      param: at(prefix, "version"),
      details: [{ path: at(prefix, "version"), message: `must be at most ${newest}` }],
    });
  }
}

function unknownDocument(prefix: (string | number)[], expected: string): ApiError {
  return ImportErrors.UNSUPPORTED_FORMAT({
    message: `Not a document this server can import: expected ${expected}.`,
    param: at(prefix, "format"),
    details: [{ path: at(prefix, "format"), message: `expected ${expected}` }],
  });
}

/**
 * The workflow import a body asks for, or the 422 of its first problem: a newer or unknown format,
 * an agent, or a malformed field (`document.graph.nodes[2].type`).
 *
 * @example const input = readWorkflowImport(await c.req.json());
 */
export function readWorkflowImport(body: unknown): WorkflowImport {
  const { document, prefix, options } = unwrap(body);
  if (isRecord(document) && "format" in document) {
    const format = document.format;
    if (format === AGENT_FORMAT) {
      throw ImportErrors.WRONG_DOCUMENT_KIND({
        message: "This document is an agent (builder.agent): import it with POST /api/agents/import.",
        param: at(prefix, "format"),
      });
    }
    if (format !== WORKFLOW_FORMAT) {
      throw unknownDocument(prefix, `format "${WORKFLOW_FORMAT}" or an n8n workflow (nodes and connections)`);
    }
    checkVersion(document, WORKFLOW_FORMAT, WORKFLOW_FORMAT_VERSION, prefix);
    const parsed =
      document.version === 1
        ? parseAt(workflowDocumentV1Schema, document, prefix)
        : parseAt(workflowDocumentSchema, document, prefix);
    return { kind: "builder", document: parsed, ...options };
  }
  if (isRecord(document) && "nodes" in document && "connections" in document) {
    return { kind: "n8n", document: parseAt(n8nWorkflowSchema, document, prefix), ...options };
  }
  throw unknownDocument(prefix, `format "${WORKFLOW_FORMAT}" or an n8n workflow (nodes and connections)`);
}

/**
 * The agent import a body asks for, or the 422 of its first problem (as `readWorkflowImport`).
 *
 * @example const input = readAgentImport(await c.req.json());
 */
export function readAgentImport(body: unknown): AgentImport {
  const { document, prefix, options } = unwrap(body);
  if (isRecord(document) && document.format === WORKFLOW_FORMAT) {
    throw ImportErrors.WRONG_DOCUMENT_KIND({
      message: "This document is a workflow (builder.workflow): import it with POST /api/workflows/import.",
      param: at(prefix, "format"),
    });
  }
  if (isRecord(document) && "nodes" in document && "connections" in document) {
    throw ImportErrors.WRONG_DOCUMENT_KIND({
      message: "This is an n8n workflow: import it with POST /api/workflows/import.",
      param: at(prefix, "nodes"),
    });
  }
  if (!isRecord(document) || document.format !== AGENT_FORMAT) {
    throw unknownDocument(prefix, `format "${AGENT_FORMAT}"`);
  }
  checkVersion(document, AGENT_FORMAT, AGENT_FORMAT_VERSION, prefix);
  return { kind: "builder", document: parseAt(agentDocumentSchema, document, prefix), ...options };
}
