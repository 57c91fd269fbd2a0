// `npm run api-types`: writes the studio's API types (apps/studio/src/api/schema.gen.ts) from the
// builder's OpenAPI document, so a change of contract breaks the studio's typecheck instead of
// drifting. scripts/studio-api-types.test.ts fails while the committed file is stale.
// Why a generator of our own rather than openapi-typescript: docs/studio.md, "API types".
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { systemClock } from "@app/core";
import { createTestDatabase } from "@app/db/testing";
import { createLogger } from "@app/http";
import { createBuilderApp } from "../apps/builder/src/app.ts";
import { loadConfig } from "../apps/builder/src/config.ts";
import { builderMigrationsFolder, schema as builderSchema } from "../apps/builder/src/db/index.ts";
import { knowledgeSearch } from "../apps/builder/src/knowledge/knowledge-ports.ts";
import { defaultAiSettings } from "../apps/builder/src/providers/settings.ts";

export const API_TYPES_FILE = fileURLToPath(new URL("../apps/studio/src/api/schema.gen.ts", import.meta.url));

/** The subset of JSON Schema (2020-12, as OpenAPI 3.1 uses it) that zod's documents contain. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  description?: string;
  format?: string;
}

interface MediaTypes {
  content?: Record<string, { schema?: JsonSchema }>;
}

export interface ApiDocument {
  paths: Record<string, Record<string, { requestBody?: MediaTypes; responses?: Record<string, MediaTypes> }>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"];

/**
 * The builder's OpenAPI document as `GET /api/openapi.json` serves it, from an app on a throwaway
 * database with a fixed configuration (the document depends on neither).
 *
 * @example const document = await builderOpenApiDocument(); Object.keys(document.paths)
 */
export async function builderOpenApiDocument(): Promise<ApiDocument> {
  const dataDir = mkdtempSync(join(tmpdir(), "api-types-"));
  const database = await createTestDatabase({
    schema: builderSchema,
    migrationsFolder: builderMigrationsFolder,
  });
  try {
    const config = loadConfig({
      DATA_DIR: dataDir,
      SECRET_KEY: "api-types-secret-key-that-is-long-enough-0123",
      PUBLIC_URL: "http://localhost:3000",
    });
    const search = knowledgeSearch({ db: database.db, clock: systemClock, config });
    const builder = createBuilderApp({
      db: database.db,
      clock: systemClock,
      logger: createLogger({ service: "api-types", level: "silent" }),
      config,
      ai: defaultAiSettings,
      agentTools: { knowledge: search },
      workflowCapabilities: { knowledge: search },
    });
    const response = await builder.app.request("/api/openapi.json");
    return (await response.json()) as ApiDocument;
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function refName(ref: string): string {
  const name = ref.replace("#/components/schemas/", "");
  if (!IDENTIFIER.test(name)) throw new Error(`cannot name the type of ${ref}`);
  return name;
}

function docComment(description: string | undefined, indent: string): string {
  if (!description) return "";
  return `${indent}/** ${description.replaceAll("*/", "*\\/").replaceAll("\n", " ")} */\n`;
}

/** Whether a union member only constrains its parent (`{ required: [...] }`, `{ not: … }`). */
function isConstraintOnly(schema: JsonSchema): boolean {
  return (
    schema.$ref === undefined &&
    schema.type === undefined &&
    schema.properties === undefined &&
    schema.enum === undefined &&
    schema.const === undefined &&
    schema.oneOf === undefined &&
    schema.anyOf === undefined &&
    schema.allOf === undefined &&
    schema.items === undefined
  );
}

function objectType(schema: JsonSchema, indent: string): string {
  const properties = Object.entries(schema.properties ?? {});
  const extra = schema.additionalProperties;
  if (properties.length === 0) {
    if (extra === false) return "Record<string, never>";
    const value = typeof extra === "object" ? typeToString(extra, indent) : "unknown";
    return `Record<string, ${value}>`;
  }
  const required = new Set(schema.required ?? []);
  const inner = `${indent}  `;
  const lines = properties.map(([name, property]) => {
    const key = IDENTIFIER.test(name) ? name : JSON.stringify(name);
    const optional = required.has(name) ? "" : "?";
    return `${docComment(property.description, inner)}${inner}${key}${optional}: ${typeToString(property, inner)};\n`;
  });
  // Typed extra properties would have to admit every listed property's type: only `unknown` is kept.
  if (typeof extra === "object" && Object.keys(extra).length === 0)
    lines.push(`${inner}[key: string]: unknown;\n`);
  return `{\n${lines.join("")}${indent}}`;
}

function union(members: string[]): string {
  const unique = [...new Set(members)];
  if (unique.includes("unknown")) return "unknown";
  return unique.length === 1 ? (unique[0] as string) : unique.map(parenthesised).join(" | ");
}

function parenthesised(type: string): string {
  if (/^[\w.]+(\[\])*$|^"[^"]*"$/.test(type)) return type;
  return isOneBracketed(type, "{", "}") ||
    (type.startsWith("Record") && isOneBracketed(type.slice(6), "<", ">"))
    ? type
    : `(${type})`;
}

/**
 * Whether `type` is one bracketed whole (`{ a: A }`), not several side by side (`{ a: A } | { b: B }`,
 * which also starts and ends with a bracket). Doc comments and string literals may hold brackets.
 */
function isOneBracketed(type: string, open: string, close: string): boolean {
  if (!type.startsWith(open)) return false;
  let depth = 0;
  for (let i = 0; i < type.length; i++) {
    if (type.startsWith("/*", i)) {
      const end = type.indexOf("*/", i + 2);
      if (end === -1) return false;
      i = end + 1;
      continue;
    }
    const char = type[i];
    if (char === '"') {
      // JSON.stringify wrote the literal: a quote inside it is escaped.
      for (i++; i < type.length && type[i] !== '"'; i++) if (type[i] === "\\") i++;
      continue;
    }
    if (char === open) depth++;
    if (char === close) depth--;
    if (depth === 0) return i === type.length - 1;
  }
  return false;
}

function singleType(schema: JsonSchema, type: string, indent: string): string {
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `${parenthesised(schema.items ? typeToString(schema.items, indent) : "unknown")}[]`;
    case "object":
      return objectType(schema, indent);
    default:
      throw new Error(`unknown JSON Schema type ${type}`);
  }
}

/**
 * The TypeScript type of a JSON Schema, `$ref`s as the component's name.
 *
 * @example typeToString({ type: ["string", "null"] }) // "string | null"
 */
export function typeToString(schema: JsonSchema, indent = ""): string {
  if (schema.$ref) return refName(schema.$ref);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) {
    const literals = schema.enum.map((value) => JSON.stringify(value));
    const isNullable =
      Array.isArray(schema.type) && schema.type.includes("null") && !schema.enum.includes(null);
    return union(isNullable ? [...literals, "null"] : literals);
  }
  const parts: string[] = [];
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length > 0) parts.push(union(types.map((type) => singleType(schema, type, indent))));
  else if (schema.properties) parts.push(objectType(schema, indent));
  for (const member of schema.allOf ?? []) parts.push(typeToString(member, indent));
  const alternatives = [...(schema.oneOf ? [schema.oneOf] : []), ...(schema.anyOf ? [schema.anyOf] : [])];
  for (const members of alternatives) {
    const rendered = members
      .filter((member) => !isConstraintOnly(member))
      .map((m) => typeToString(m, indent));
    // A member that only constrains the parent admits every value the parent does.
    if (rendered.length === members.length && rendered.length > 0) parts.push(union(rendered));
  }
  if (parts.length === 0) return "unknown";
  return parts.length === 1 ? (parts[0] as string) : parts.map(parenthesised).join(" & ");
}

function jsonSchemaOf(media: MediaTypes | undefined): JsonSchema | undefined {
  return media?.content?.["application/json"]?.schema;
}

/**
 * The studio's API types from an OpenAPI document: one named type per component schema, and
 * `ApiOperations`, each operation's JSON body and its success answer by `"METHOD /path"`.
 *
 * @example renderApiTypes(document).includes("export type Agent = {") // true
 */
export function renderApiTypes(document: ApiDocument): string {
  const out: string[] = [
    "// Generated by `npm run api-types` from the builder's OpenAPI document. Do not edit:\n",
    "// scripts/studio-api-types.test.ts fails when this file is stale.\n",
  ];
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    out.push(`\n${docComment(schema.description, "")}export type ${name} = ${typeToString(schema)};\n`);
  }
  out.push("\n/** Each operation's JSON request body and its success answer, by `METHOD /path`. */\n");
  out.push("export interface ApiOperations {\n");
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = operations[method];
      if (!operation) continue;
      const body = jsonSchemaOf(operation.requestBody);
      const success = Object.entries(operation.responses ?? {}).find(([status]) => status.startsWith("2"));
      const answer = success ? jsonSchemaOf(success[1]) : undefined;
      const fields = [
        ...(body ? [`    body: ${typeToString(body, "    ")};\n`] : []),
        `    response: ${answer ? typeToString(answer, "    ") : "void"};\n`,
      ];
      out.push(`  ${JSON.stringify(`${method.toUpperCase()} ${path}`)}: {\n${fields.join("")}  };\n`);
    }
  }
  out.push("}\n");
  return out.join("");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  writeFileSync(API_TYPES_FILE, renderApiTypes(await builderOpenApiDocument()));
  console.log(`Wrote ${API_TYPES_FILE}`);
  // The builder's module graph keeps timers and pools alive; the file is written.
  process.exit(0);
}
