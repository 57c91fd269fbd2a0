// Structured differences between two states of an agent or a workflow (a version or the draft),
// for the history drawer and for "see their changes" after an edit conflict.
import { isDeepStrictEqual } from "node:util";
import { diffLines } from "diff";

/** One field that differs, with both sides. */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/** A line diff: runs of lines kept, added or removed, in order. */
export interface LineChange {
  op: "equal" | "add" | "remove";
  text: string;
}

/**
 * The fields of two flat records that differ, in the order of `fields`.
 *
 * @example changedFields({ model: "a" }, { model: "b" }, ["model"]) // [{ field: "model", before: "a", after: "b" }]
 */
export function changedFields(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  fields: readonly string[],
): FieldChange[] {
  return fields
    .filter((field) => !isDeepStrictEqual(before[field], after[field]))
    .map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
}

/**
 * A line diff of two texts (jsdiff's Myers diff), each run of lines as one entry.
 *
 * @example diffText("a\nb\n", "a\nc\n") // [{ op: "equal", text: "a\n" }, { op: "remove", text: "b\n" }, { op: "add", text: "c\n" }]
 */
export function diffText(before: string, after: string): LineChange[] {
  return diffLines(before, after).map((part) => ({
    op: part.added ? "add" : part.removed ? "remove" : "equal",
    text: part.value,
  }));
}

/**
 * What was added, removed and changed between two lists of things with ids; a changed one lists its
 * differing fields (`data` one level down, as `data.prompt`).
 *
 * @example diffById(beforeNodes, afterNodes)
 */
export function diffById<T extends { id: string }>(before: readonly T[], after: readonly T[]) {
  const old = new Map(before.map((item) => [item.id, item]));
  const now = new Map(after.map((item) => [item.id, item]));
  const changed: { id: string; changes: FieldChange[] }[] = [];
  for (const [id, item] of now) {
    const previous = old.get(id);
    if (!previous) continue;
    const changes = diffObject(previous as Record<string, unknown>, item as Record<string, unknown>);
    if (changes.length > 0) changed.push({ id, changes });
  }
  return {
    added: after.filter((item) => !old.has(item.id)),
    removed: before.filter((item) => !now.has(item.id)),
    changed,
  };
}

/** Differing keys of two objects, descending one level into `data`. */
function diffObject(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const key of unionKeys(before, after)) {
    if (key === "data" && isRecord(before.data) && isRecord(after.data)) {
      for (const dataKey of unionKeys(before.data, after.data)) {
        if (!isDeepStrictEqual(before.data[dataKey], after.data[dataKey])) {
          changes.push({
            field: `data.${dataKey}`,
            before: before.data[dataKey] ?? null,
            after: after.data[dataKey] ?? null,
          });
        }
      }
    } else if (!isDeepStrictEqual(before[key], after[key])) {
      changes.push({ field: key, before: before[key] ?? null, after: after[key] ?? null });
    }
  }
  return changes;
}

function unionKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
