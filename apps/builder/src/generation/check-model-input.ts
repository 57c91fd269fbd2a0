import { GenerationErrors } from "./errors.ts";
import type { GenerationContext, InputSchema } from "./generation-context.ts";
import { inputSchemaOf, validateInput } from "./input-schema.ts";
import { type ReplicateClient, replicateErrorInfo } from "./replicate-access.ts";

/** `owner/name` or `owner/name:version` split into its parts. */
export interface ModelRef {
  owner: string;
  name: string;
  version: string | undefined;
}

export const MODEL_REF_PATTERN =
  /^([A-Za-z0-9][A-Za-z0-9._-]*)\/([A-Za-z0-9][A-Za-z0-9._-]*)(?::([0-9a-f]{64}))?$/;

/**
 * Parses a model reference as the routes accept it.
 *
 * @example parseModelRef("black-forest-labs/flux-schnell") // { owner: "black-forest-labs", name: "flux-schnell", version: undefined }
 */
export function parseModelRef(model: string): ModelRef {
  const match = MODEL_REF_PATTERN.exec(model);
  if (!match) throw GenerationErrors.MODEL_NOT_FOUND({ param: "model" });
  return { owner: match[1] ?? "", name: match[2] ?? "", version: match[3] };
}

/**
 * Checks `input` against the model version's OpenAPI input schema before anything is paid for:
 * 422 naming each field, 422 on `model` when Replicate does not know it. When the schema cannot be
 * fetched (Replicate slow or down) the input goes through unchecked; Replicate validates it again.
 *
 * @example await checkModelInput(context, await context.replicate.forWorkspace("ws_1"), parseModelRef("owner/name"), { prompt: "a cat" });
 */
export async function checkModelInput(
  context: Pick<GenerationContext, "schemas" | "logger">,
  replicate: ReplicateClient,
  ref: ModelRef,
  input: Record<string, unknown>,
): Promise<void> {
  const schema = await inputSchemaFor(context, replicate, ref);
  if (!schema) return;
  const issues = validateInput(input, schema);
  if (issues.length === 0) return;
  throw GenerationErrors.INVALID_INPUT({
    message: `The input does not match the model's input schema: ${issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")}.`,
    ...(issues[0] ? { param: issues[0].path } : {}),
    details: issues,
  });
}

/**
 * The model version's input schema as the token's account sees it (cached per token, since a private
 * model is visible to its own account only), undefined when it publishes none or Replicate cannot be
 * asked; 422 on `model` when Replicate does not know the model.
 *
 * @example const schema = await inputSchemaFor(context, await context.replicate.forWorkspace("ws_1"), parseModelRef("owner/name"));
 */
export async function inputSchemaFor(
  context: Pick<GenerationContext, "schemas" | "logger">,
  replicate: ReplicateClient,
  ref: ModelRef,
): Promise<InputSchema | undefined> {
  const model = `${ref.owner}/${ref.name}:${ref.version ?? "latest"}`;
  const key = `${replicate.tokenKey}|${model}`;
  const cached = context.schemas.get(key);
  if (cached !== undefined) return cached ?? undefined;
  const { client } = replicate;
  try {
    const openapi = ref.version
      ? (await client.models.versions.get(ref.owner, ref.name, ref.version)).openapi_schema
      : (await client.models.get(ref.owner, ref.name)).latest_version?.openapi_schema;
    const schema = inputSchemaOf(openapi) ?? null;
    context.schemas.set(key, schema);
    return schema ?? undefined;
  } catch (error) {
    const info = replicateErrorInfo(error);
    if (info?.status === 404)
      throw GenerationErrors.MODEL_NOT_FOUND({
        message: `Replicate has no model ${ref.owner}/${ref.name}${ref.version ? ` with version ${ref.version}` : ""}.`,
        param: "model",
      });
    context.logger.warn({ err: error, model }, "model schema unavailable; input not checked");
    return undefined;
  }
}
