// The differences the studio computes itself, in the shapes of the API's diffs (GET …/versions/{a}/diff/{b}),
// for what the API cannot compare: the revision an editor loaded against the one someone else saved
// since (an edit conflict's "see their changes"), and either of them against the editor's own edits.
import type { AgentDiff, FieldChange, LineChange, WorkflowDiff } from "../api/schema.gen.ts";

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Equality of JSON values, object keys in any order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = Object.keys(a).filter((key) => a[key] !== undefined);
    const otherKeys = Object.keys(b).filter((key) => b[key] !== undefined);
    return keys.length === otherKeys.length && keys.every((key) => sameJson(a[key], b[key]));
  }
  return false;
}

function changedKeys(before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (key === "data" && isRecord(before.data) && isRecord(after.data)) {
      for (const change of changedKeys(before.data, after.data))
        changes.push({ ...change, field: `data.${change.field}` });
    } else if (!sameJson(before[key], after[key])) {
      changes.push({ field: key, before: before[key] ?? null, after: after[key] ?? null });
    }
  }
  return changes;
}

function diffList<T extends { id: string }>(before: readonly T[], after: readonly T[]) {
  const old = new Map(before.map((item) => [item.id, item]));
  const now = new Map(after.map((item) => [item.id, item]));
  const changed: { id: string; changes: FieldChange[] }[] = [];
  for (const [id, item] of now) {
    const previous = old.get(id);
    if (!previous) continue;
    const changes = changedKeys(
      previous as unknown as Record<string, unknown>,
      item as unknown as Record<string, unknown>,
    );
    if (changes.length > 0) changed.push({ id, changes });
  }
  return {
    added: after.filter((item) => !old.has(item.id)) as unknown[],
    removed: before.filter((item) => !now.has(item.id)) as unknown[],
    changed,
  };
}

/** What a workflow's content is, for comparing. */
export interface WorkflowContent {
  name: string;
  description?: string;
  graph: { nodes: readonly { id: string }[]; edges: readonly { id: string }[] };
}

/**
 * What changed from one workflow content to another, as the API's WorkflowDiff.
 *
 * @example diffWorkflows(loaded, theirs).nodes.added
 */
export function diffWorkflows(
  before: WorkflowContent,
  after: WorkflowContent,
  sides: { from: WorkflowDiff["from"]; to: WorkflowDiff["to"] } = { from: "draft", to: "draft" },
): WorkflowDiff {
  const fields: FieldChange[] = [];
  if (before.name !== after.name) fields.push({ field: "name", before: before.name, after: after.name });
  if ((before.description ?? "") !== (after.description ?? "")) {
    fields.push({ field: "description", before: before.description ?? "", after: after.description ?? "" });
  }
  return {
    ...sides,
    fields,
    nodes: diffList(before.graph.nodes, after.graph.nodes),
    edges: diffList(before.graph.edges, after.graph.edges),
  };
}

/** What an agent's content is, for comparing (the fields a version keeps). */
export interface AgentContent {
  name: string;
  description: string;
  provider: string;
  model: string;
  instructions: string;
  temperature: number | null;
  tools: readonly unknown[];
  knowledge_base_ids: readonly string[];
  memory_turns: number;
}

const AGENT_FIELDS = [
  "name",
  "description",
  "provider",
  "model",
  "instructions",
  "temperature",
  "tools",
  "knowledge_base_ids",
  "memory_turns",
] as const;

/**
 * What changed from one agent content to another, as the API's AgentDiff.
 *
 * @example diffAgents(loaded, theirs).instructions
 */
export function diffAgents(
  before: AgentContent,
  after: AgentContent,
  sides: { from: AgentDiff["from"]; to: AgentDiff["to"] } = { from: "draft", to: "draft" },
): AgentDiff {
  const fields = AGENT_FIELDS.filter((field) => !sameJson(before[field], after[field])).map((field) => ({
    field,
    before: before[field],
    after: after[field],
  }));
  return {
    ...sides,
    fields,
    instructions:
      before.instructions === after.instructions ? null : diffLines(before.instructions, after.instructions),
    knowledge_bases: {
      added: after.knowledge_base_ids.filter((id) => !before.knowledge_base_ids.includes(id)),
      removed: before.knowledge_base_ids.filter((id) => !after.knowledge_base_ids.includes(id)),
    },
  };
}

/**
 * A line diff (longest common subsequence), runs of lines kept, removed and added, in the API's shape.
 *
 * @example diffLines("a\nb\n", "a\nc\n") // [{ op: "equal", text: "a\n" }, { op: "remove", text: "b\n" }, { op: "add", text: "c\n" }]
 */
export function diffLines(before: string, after: string): LineChange[] {
  const split = (text: string) => (text === "" ? [] : (text.match(/[^\n]*\n|[^\n]+$/g) ?? []));
  const a = split(before);
  const b = split(after);
  // Lengths of the longest common subsequences of the suffixes; prompts are short enough for n×m.
  const table: number[][] = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0),
  );
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const row = table[i] as number[];
      row[j] =
        a[i] === b[j]
          ? ((table[i + 1] as number[])[j + 1] as number) + 1
          : Math.max((table[i + 1] as number[])[j] as number, row[j + 1] as number);
    }
  }
  const out: LineChange[] = [];
  const push = (op: LineChange["op"], text: string) => {
    const last = out.at(-1);
    if (last?.op === op) last.text += text;
    else out.push({ op, text });
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      push("equal", a[i] as string);
      i++;
      j++;
    } else if (
      j >= b.length ||
      (i < a.length && ((table[i + 1] as number[])[j] as number) >= ((table[i] as number[])[j + 1] as number))
    ) {
      push("remove", a[i] as string);
      i++;
    } else {
      push("add", b[j] as string);
      j++;
    }
  }
  return out;
}

/** Whether a diff found nothing. */
export function isEmptyDiff(diff: WorkflowDiff | AgentDiff): boolean {
  if ("nodes" in diff) {
    return (
      diff.fields.length === 0 &&
      diff.nodes.added.length + diff.nodes.removed.length + diff.nodes.changed.length === 0 &&
      diff.edges.added.length + diff.edges.removed.length + diff.edges.changed.length === 0
    );
  }
  return diff.fields.length === 0;
}
