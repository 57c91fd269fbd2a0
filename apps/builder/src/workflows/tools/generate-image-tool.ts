import { NodeExecutionError } from "@app/workflow";
import type { GenerationCapability } from "../capabilities.ts";
import { defineTool, z } from "./registry.ts";

/** A fast, cheap image model that takes only a prompt; any Replicate image model may be named. */
export const DEFAULT_IMAGE_MODEL = "black-forest-labs/flux-schnell";

/**
 * `generate_image`: a Replicate image generation, awaited until it finishes. Its outputs are the
 * builder's own copies (`/api/files/{id}`), so they outlive Replicate's one-hour URLs. The
 * generation also appears in the workspace's gallery.
 */
export function generateImageTool(generation: GenerationCapability | undefined) {
  return defineTool({
    name: "generate_image",
    description:
      "Generates an image with a Replicate model from a prompt (plus any model inputs) and returns its URL.",
    outputs: ["result", "url", "urls", "generation_id"],
    args: z.object({
      prompt: z.string().min(1).max(10_000),
      model: z
        .string()
        .regex(/^[\w.-]+\/[\w.-]+(:[0-9a-f]{64})?$/, "must be owner/name or owner/name:version")
        .default(DEFAULT_IMAGE_MODEL),
      input: z.record(z.string(), z.unknown()).default({}),
    }),
    run: async (args, { workspaceId, signal }) => {
      if (!generation)
        throw new NodeExecutionError("generation_unavailable", "Image generation is not available.");
      const result = await generation.generate({
        workspaceId,
        kind: "image",
        model: args.model,
        input: { ...args.input, prompt: args.prompt },
        signal,
      });
      if (result.status !== "succeeded") {
        throw new NodeExecutionError(
          "generation_failed",
          `Generation ${result.id} ${result.status}: ${result.error ?? "no reason given"}`,
        );
      }
      const urls = result.outputs.map((output) => output.url);
      return { result: result.outputs, url: urls[0] ?? null, urls, generation_id: result.id };
    },
  });
}
