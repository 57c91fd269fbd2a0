import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../api/client.ts";
import type { ImportedAgent, ImportedWorkflow, ImportPreview } from "../api/schema.gen.ts";

/** What is imported: a workflow (ours or n8n's) or an agent. */
export type ImportKind = "workflow" | "agent";

/** A file picked or dropped, read as JSON. */
export interface ImportFile {
  name: string;
  document: unknown;
}

const basePath = (kind: ImportKind) => (kind === "workflow" ? "/api/workflows/import" : "/api/agents/import");
const query = (kind: ImportKind, partial: boolean) => (kind === "workflow" && partial ? "?partial=true" : "");

/**
 * Reads a file as the JSON document an import sends, or throws saying why it is not one.
 *
 * @example const file = await readImportFile(dropped);
 */
export async function readImportFile(file: File): Promise<ImportFile> {
  const text = await file.text();
  try {
    return { name: file.name, document: JSON.parse(text) as unknown };
  } catch {
    throw new Error(`${file.name} is not a JSON file: export one from a workflow or an agent, or from n8n.`);
  }
}

/**
 * What importing the file would do (`POST …/import/preview`), nothing created.
 *
 * @example const preview = useImportPreview("workflow", file, false);
 */
export function useImportPreview(kind: ImportKind, file: ImportFile | null, partial: boolean) {
  return useQuery({
    queryKey: ["import-preview", kind, file, partial],
    queryFn: () =>
      api<ImportPreview>(`${basePath(kind)}/preview${query(kind, partial)}`, {
        json: { document: file?.document },
      }),
    enabled: file !== null,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
  });
}

/**
 * Imports the file, with the references chosen for the unresolved ones and the name to give it.
 *
 * @example importFile.mutate({ file, references: { kb_1: "kb_2" }, name: "Copy", partial: false })
 */
export function useImport(kind: ImportKind) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: {
      file: ImportFile;
      references: Record<string, string>;
      name: string | undefined;
      partial: boolean;
    }) =>
      api<ImportedWorkflow | ImportedAgent>(`${basePath(kind)}${query(kind, input.partial)}`, {
        json: {
          document: input.file.document,
          ...(Object.keys(input.references).length > 0 ? { references: input.references } : {}),
          ...(input.name ? { name: input.name } : {}),
        },
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: [kind === "workflow" ? "workflows" : "agents"] }),
  });
}
