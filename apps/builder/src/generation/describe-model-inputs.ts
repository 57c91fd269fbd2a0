import { inputSchemaFor, parseModelRef } from "./check-model-input.ts";
import type { GenerationContext } from "./generation-context.ts";
import { resolveSchema } from "./input-schema.ts";

/** One input of a model, flattened from its Cog schema for a form to render. */
export interface ModelInput {
  name: string;
  type: "string" | "integer" | "number" | "boolean" | "array" | "object" | null;
  title: string;
  description: string;
  format: string | null;
  default: unknown;
  enum: unknown[] | null;
  minimum: number | null;
  maximum: number | null;
  is_required: boolean;
}

const TYPES = ["string", "integer", "number", "boolean", "array", "object"] as const;

/**
 * The inputs a model accepts, in the model's own order (`x-order`), with `$ref`/`allOf` enums
 * resolved; `inputs` is null when the model publishes no input schema (or Replicate cannot be
 * asked right now), so a client falls back to a bare prompt. Asked with the workspace's token (a
 * private model of its account is found); 422 on `model` for an unknown model, 424 without any token.
 *
 * @example const { inputs } = await describeModelInputs(context, "ws_1", "black-forest-labs/flux-schnell");
 */
export async function describeModelInputs(
  context: Pick<GenerationContext, "replicate" | "schemas" | "logger">,
  workspaceId: string,
  model: string,
): Promise<{ model: string; inputs: ModelInput[] | null }> {
  const ref = parseModelRef(model);
  const schema = await inputSchemaFor(context, await context.replicate.forWorkspace(workspaceId), ref);
  if (!schema) return { model, inputs: null };
  const properties = asObject(schema.input.properties);
  const required = Array.isArray(schema.input.required) ? schema.input.required.map(String) : [];
  const inputs = Object.entries(properties).map(([name, raw], index) => {
    const property = resolveSchema(asObject(raw), schema.components);
    const order = typeof property["x-order"] === "number" ? property["x-order"] : 1000 + index;
    const type = TYPES.find((candidate) => candidate === property.type) ?? null;
    const input: ModelInput = {
      name,
      type,
      title: typeof property.title === "string" && property.title !== name ? property.title : humanise(name),
      description: typeof property.description === "string" ? property.description : "",
      format: typeof property.format === "string" ? property.format : null,
      default: property.default ?? null,
      enum: Array.isArray(property.enum) ? property.enum : null,
      minimum: typeof property.minimum === "number" ? property.minimum : null,
      maximum: typeof property.maximum === "number" ? property.maximum : null,
      is_required: required.includes(name),
    };
    return { order, input };
  });
  inputs.sort((a, b) => a.order - b.order);
  return { model, inputs: inputs.map((entry) => entry.input) };
}

function humanise(name: string): string {
  const words = name.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function asObject(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
