// What an export leaves out because it is, or looks like, a secret: an HTTP node's inline token,
// password or key value (replaced by a credential reference the import asks for), the literal value
// of a header or query parameter whose name says it carries one, and a password written into a URL.
import type { WorkflowGraph } from "@app/workflow";
import type { ExportedReference } from "./contract.ts";

export interface Redacted {
  path: string;
  reason: string;
}

/** Header and query parameter names that carry secrets (Authorization, X-Api-Key, access_token, …). */
const SENSITIVE_NAME =
  /authorization|(^|[-_])auth($|[-_])|token|secret|passw|api[-_]?key|apikey|access[-_]?key|cookie|session|signature|private[-_]?key/i;

const isLiteral = (value: unknown): value is string =>
  typeof value === "string" && value !== "" && !value.includes("{{");

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Empties, in place, the literal values of secret-looking entries of a header or query record.
 *
 * @example redactNamedValues(node.data.headers, "graph.nodes[1].data.headers", redacted);
 */
export function redactNamedValues(record: unknown, path: string, redacted: Redacted[]): void {
  if (!isRecord(record)) return;
  for (const [name, value] of Object.entries(record)) {
    if (SENSITIVE_NAME.test(name) && isLiteral(value)) {
      record[name] = "";
      redacted.push({ path: `${path}.${name}`, reason: `the value of ${name} looks like a secret` });
    }
  }
}

/**
 * A URL without a password in it (and the redaction noted), or the URL unchanged.
 *
 * @example redactUrl("https://me:pw@example.com/x", "graph.nodes[1].data.url", redacted) // "https://me@example.com/x"
 */
export function redactUrl(url: string, path: string, redacted: Redacted[]): string {
  if (url.includes("{{")) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.password === "") return url;
  parsed.password = "";
  redacted.push({ path, reason: "the URL held a password" });
  return parsed.toString();
}

const SECRET_FIELDS: Record<string, { field: string; what: string }> = {
  bearer: { field: "token", what: "bearer token" },
  basic: { field: "password", what: "password" },
  api_key: { field: "value", what: "API key" },
};

/** The credential id standing for an inline secret the export left out (until the import maps it). */
const PLACEHOLDER = /^inline_secret_\d+$/;

/**
 * Replaces an inline secret of an HTTP auth object (in place) by a credential placeholder, and
 * answers the reference the document lists for it; undefined when it holds none. An auth still
 * holding a placeholder (imported, never mapped) is listed again the same way.
 */
function takeInlineSecret(
  auth: unknown,
  nextPlaceholder: () => string,
  label: string,
): ExportedReference | undefined {
  if (!isRecord(auth) || typeof auth.type !== "string") return undefined;
  const secret = SECRET_FIELDS[auth.type];
  if (!secret) return undefined;
  const isPlaceholder = typeof auth.credential_id === "string" && PLACEHOLDER.test(auth.credential_id);
  if (!isPlaceholder && (auth[secret.field] === undefined || auth.credential_id !== undefined))
    return undefined;
  if (!isPlaceholder) {
    delete auth[secret.field];
    auth.credential_id = nextPlaceholder();
  }
  return {
    kind: "credential",
    id: String(auth.credential_id),
    name: `${label}: ${secret.what}`,
    provider: "http",
    inline_secret: true,
  };
}

/** The placeholder ids a graph already holds, so new ones never take one of them. */
function heldPlaceholders(graph: WorkflowGraph): Set<string> {
  const held = new Set<string>();
  for (const node of graph.nodes) {
    const auth =
      node.type === "http" ? node.data.auth : node.type === "tool" ? node.data.args.auth : undefined;
    if (isRecord(auth) && typeof auth.credential_id === "string" && PLACEHOLDER.test(auth.credential_id)) {
      held.add(auth.credential_id);
    }
  }
  return held;
}

/**
 * Takes the secrets out of a graph (in place: pass a copy): inline HTTP secrets become references
 * to credentials the import asks for; secret-looking header and query values and URL passwords are
 * emptied. Answers the references and the emptied fields.
 *
 * @example const { references, redacted } = stripGraphSecrets(copy);
 */
export function stripGraphSecrets(graph: WorkflowGraph): {
  references: ExportedReference[];
  redacted: Redacted[];
} {
  const references: ExportedReference[] = [];
  const redacted: Redacted[] = [];
  const taken = heldPlaceholders(graph);
  const nextPlaceholder = () => {
    let n = 1;
    while (taken.has(`inline_secret_${n}`)) n++;
    taken.add(`inline_secret_${n}`);
    return `inline_secret_${n}`;
  };
  for (const [index, node] of graph.nodes.entries()) {
    const at = `graph.nodes[${index}].data`;
    const label = node.data.title ? `${node.data.title} (${node.id})` : node.id;
    if (node.type === "http") {
      const reference = takeInlineSecret(node.data.auth, nextPlaceholder, label);
      if (reference) references.push(reference);
      redactNamedValues(node.data.headers, `${at}.headers`, redacted);
      redactNamedValues(node.data.query, `${at}.query`, redacted);
      node.data.url = redactUrl(node.data.url, `${at}.url`, redacted);
    } else if (node.type === "tool" && node.data.tool === "http_request") {
      const args = node.data.args;
      const reference = takeInlineSecret(args.auth, nextPlaceholder, label);
      if (reference) references.push(reference);
      redactNamedValues(args.headers, `${at}.args.headers`, redacted);
      redactNamedValues(args.query, `${at}.args.query`, redacted);
      if (typeof args.url === "string") args.url = redactUrl(args.url, `${at}.args.url`, redacted);
    }
  }
  return { references, redacted };
}

/**
 * Takes the secrets out of an agent's HTTP tools (in place: pass a copy): secret-looking header
 * values and URL passwords are emptied.
 *
 * @example const redacted = stripAgentSecrets(copy.tools);
 */
export function stripAgentSecrets(tools: unknown[]): Redacted[] {
  const redacted: Redacted[] = [];
  for (const [index, tool] of tools.entries()) {
    if (!isRecord(tool) || tool.type !== "http") continue;
    redactNamedValues(tool.headers, `tools[${index}].headers`, redacted);
    if (typeof tool.url === "string") tool.url = redactUrl(tool.url, `tools[${index}].url`, redacted);
  }
  return redacted;
}
