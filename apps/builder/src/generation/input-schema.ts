import type { ErrorDetail } from "@app/http";

type JsonSchema = Record<string, unknown>;

/**
 * The `Input` schema of a model version's OpenAPI document (Cog puts it at
 * `components.schemas.Input`), or undefined when the version does not publish one.
 *
 * @example const input = inputSchemaOf(version.openapi_schema);
 */
export function inputSchemaOf(openapi: unknown): { input: JsonSchema; components: JsonSchema } | undefined {
  const components = asObject(asObject(openapi).components);
  const schemas = asObject(components.schemas);
  const input = asObject(schemas.Input);
  if (Object.keys(asObject(input.properties)).length === 0) return undefined;
  return { input, components: schemas };
}

/**
 * Checks an input against a Cog input schema: required fields, unknown fields, types, enums and
 * numeric bounds — the parts Cog generates. Field paths are `input.<name>`.
 *
 * @example validateInput({ prompt: 1 }, schema) // [{ path: "input.prompt", message: "must be a string" }]
 */
export function validateInput(
  input: Record<string, unknown>,
  schema: { input: JsonSchema; components: JsonSchema },
): ErrorDetail[] {
  const issues: ErrorDetail[] = [];
  const properties = asObject(schema.input.properties);
  const required = Array.isArray(schema.input.required) ? schema.input.required.map(String) : [];
  for (const name of required) {
    if (input[name] === undefined || input[name] === null)
      issues.push({ path: `input.${name}`, message: "is required", code: "required" });
  }
  for (const [name, value] of Object.entries(input)) {
    const property = properties[name];
    if (property === undefined) {
      issues.push({
        path: `input.${name}`,
        message: `is not an input of this model (inputs: ${Object.keys(properties).join(", ")})`,
        code: "unknown_field",
      });
      continue;
    }
    if (value === null) continue;
    const message = checkValue(value, resolveSchema(asObject(property), schema.components));
    if (message) issues.push({ path: `input.${name}`, message, code: "invalid" });
  }
  return issues;
}

/**
 * Merges `$ref`s and `allOf` into one flat schema (Cog wraps enums as `allOf: [{ $ref }]`).
 *
 * @example resolveSchema({ allOf: [{ $ref: "#/components/schemas/size" }], default: "1:1" }, components) // { enum: [...], type: "string", default: "1:1" }
 */
export function resolveSchema(schema: JsonSchema, components: JsonSchema, depth = 0): JsonSchema {
  if (depth > 5) return schema;
  let merged: JsonSchema = { ...schema };
  const ref =
    typeof schema.$ref === "string" ? /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1] : undefined;
  if (ref) merged = { ...resolveSchema(asObject(components[ref]), components, depth + 1), ...merged };
  if (Array.isArray(schema.allOf))
    for (const part of schema.allOf)
      merged = { ...resolveSchema(asObject(part), components, depth + 1), ...merged };
  return merged;
}

function checkValue(value: unknown, schema: JsonSchema): string | undefined {
  const type = schema.type;
  if (type === "string" && typeof value !== "string") return "must be a string";
  if (type === "boolean" && typeof value !== "boolean") return "must be a boolean";
  if (type === "integer" && !Number.isInteger(value)) return "must be an integer";
  if (type === "number" && (typeof value !== "number" || !Number.isFinite(value))) return "must be a number";
  if (type === "array" && !Array.isArray(value)) return "must be an array";
  if (type === "object" && (typeof value !== "object" || Array.isArray(value))) return "must be an object";
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    return `must be one of ${schema.enum.map((item) => JSON.stringify(item)).join(", ")}`;
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum)
      return `must be at least ${schema.minimum}`;
    if (typeof schema.maximum === "number" && value > schema.maximum)
      return `must be at most ${schema.maximum}`;
  }
  return undefined;
}

function asObject(value: unknown): JsonSchema {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonSchema) : {};
}
