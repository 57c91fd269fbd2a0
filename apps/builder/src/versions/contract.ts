// What agents and workflows share about published versions: the request bodies, the path and
// query parameters, and the selector a caller uses to pick the draft or a version.
import { pathId } from "@app/http";
import { z } from "@hono/zod-openapi";

/** Version numbers start at 1 and grow by one per publish; int4 bounds what the column holds. */
const versionNumber = z.coerce.number().int().min(1).max(2_147_483_647);

export const publishVersionBody = z
  .object({
    notes: z.string().max(5000).default("").openapi({ description: "What changed, for the history" }),
    force: z.boolean().default(false).openapi({
      description:
        "Publish without running the evaluation gate; the version records that it skipped the gate",
    }),
  })
  .strict()
  .openapi("PublishVersionRequest");

export const versionParams = z.object({
  id: pathId("id"),
  version: versionNumber.openapi({ param: { name: "version", in: "path" }, example: 3 }),
});

export const versionListQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(20)
    .openapi({ param: { name: "limit", in: "query" } }),
  cursor: versionNumber
    .optional()
    .openapi({ param: { name: "cursor", in: "query" }, description: "The next_cursor of a previous page" }),
});

export type VersionListQuery = z.infer<typeof versionListQuery>;

/** Which content a run or a chat turn uses: the draft (absent), a version number, or the newest published one. */
export const versionSelector = z
  .union([z.number().int().min(1).max(2_147_483_647), z.literal("published")])
  .optional()
  .openapi({
    description:
      'Run a published version: its number, or "published" for the newest (the draft when never published). Absent: the draft.',
  });

export type VersionSelector = z.infer<typeof versionSelector>;

/** The fields every version answer carries. */
export const versionFields = {
  version: z.number().int(),
  notes: z.string(),
  created_by: z.string().nullable(),
  created_at: z.string(),
};

/** The publishing state an agent or workflow answer carries. */
export const publishingFields = {
  published_version: z
    .number()
    .int()
    .nullable()
    .openapi({ description: "The newest published version; null when never published" }),
  published_at: z.string().nullable(),
  has_unpublished_changes: z.boolean().openapi({
    description: "The draft changed after the newest version was published (or was never published)",
  }),
};

/**
 * The publishing fields of an answer from a row's columns.
 *
 * @example const fields = toPublishingJson(row); // { published_version: 2, published_at: "…", has_unpublished_changes: false }
 */
export function toPublishingJson(row: {
  publishedVersion: number | null;
  publishedAt: Date | null;
  updatedAt: Date;
}) {
  return {
    published_version: row.publishedVersion,
    published_at: row.publishedAt?.toISOString() ?? null,
    has_unpublished_changes: row.publishedAt === null || row.updatedAt.getTime() > row.publishedAt.getTime(),
  };
}

/**
 * The list envelope of a page of versions (newest first), whose cursor is the last version number.
 *
 * @example const page = toVersionPage(rows, query.limit, toAgentVersionJson);
 */
export function toVersionPage<Row extends { version: number }, Out>(
  rows: Row[],
  limit: number,
  toJson: (row: Row) => Out,
) {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return {
    data: pageRows.map(toJson),
    has_more: hasMore,
    next_cursor: hasMore && last ? String(last.version) : null,
  };
}

/**
 * The version number a selector names for a row: undefined for the draft.
 *
 * @example versionToRun({ publishedVersion: 4 }, "published") // 4
 */
export function versionToRun(
  row: { publishedVersion: number | null },
  selector: VersionSelector,
): number | undefined {
  if (selector === undefined) return undefined;
  if (selector === "published") return row.publishedVersion ?? undefined;
  return selector;
}

/** `{a}` and `{b}` of a diff: a version number or `draft`. */
export const diffParams = z.object({
  id: pathId("id"),
  a: z
    .union([z.literal("draft"), versionNumber])
    .openapi({ param: { name: "a", in: "path" }, description: "A version number, or draft", example: 1 }),
  b: z.union([z.literal("draft"), versionNumber]).openapi({
    param: { name: "b", in: "path" },
    description: "A version number, or draft",
    example: "draft",
  }),
});

export const fieldChangeSchema = z
  .object({ field: z.string(), before: z.unknown(), after: z.unknown() })
  .openapi("FieldChange");

export const lineChangeSchema = z
  .object({ op: z.enum(["equal", "add", "remove"]), text: z.string() })
  .openapi("LineChange");
