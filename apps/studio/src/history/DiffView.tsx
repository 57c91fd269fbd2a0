import type { AgentDiff, FieldChange, WorkflowDiff } from "../api/schema.gen.ts";
import { isEmptyDiff } from "./diff.ts";

const LABELS: Record<string, string> = {
  name: "Name",
  description: "Description",
  provider: "Provider",
  model: "Model",
  instructions: "Instructions",
  temperature: "Temperature",
  tools: "Tools",
  knowledge_base_ids: "Knowledge bases",
  memory_turns: "Memory (turns)",
};

/** A value of a field change, short enough for a table cell. */
export function shortValue(value: unknown): string {
  if (value === null || value === undefined) return "—";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 240 ? `${text.slice(0, 239)}…` : text;
}

function Changes({ changes }: { changes: FieldChange[] }) {
  return (
    <table className="diff-table">
      <thead>
        <tr>
          <th>Field</th>
          <th>Before</th>
          <th>After</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((change) => (
          <tr key={change.field}>
            <td>{LABELS[change.field] ?? change.field}</td>
            <td className="diff-before">
              <code>{shortValue(change.before)}</code>
            </td>
            <td className="diff-after">
              <code>{shortValue(change.after)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type GraphItem = {
  id: string;
  type?: string;
  data?: { title?: string };
  source?: string;
  target?: string;
  source_handle?: string | null;
};

function describeNode(item: unknown): string {
  const node = item as GraphItem;
  return `${node.data?.title ? `${node.data.title} ` : ""}(${node.id}${node.type ? `, ${node.type}` : ""})`;
}

function describeEdge(item: unknown): string {
  const edge = item as GraphItem;
  return `${edge.source} → ${edge.target}${edge.source_handle ? ` (${edge.source_handle})` : ""}`;
}

/**
 * The differences between two states of a workflow or an agent, as the API (or the studio's own
 * `diff.ts`) describes them: fields before and after, nodes and edges added, removed and changed,
 * the instructions line by line.
 *
 * @example <DiffView diff={diff} />
 */
export function DiffView({ diff }: { diff: WorkflowDiff | AgentDiff }) {
  if (isEmptyDiff(diff)) return <p className="muted">No differences.</p>;
  if ("nodes" in diff) {
    return (
      <div className="diff" data-testid="diff">
        {diff.fields.length > 0 ? <Changes changes={diff.fields} /> : null}
        {diff.nodes.added.length > 0 ? (
          <section>
            <h4>Nodes added</h4>
            <ul className="diff-list">
              {diff.nodes.added.map((node) => (
                <li key={(node as GraphItem).id} className="diff-added">
                  + {describeNode(node)}
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {diff.nodes.removed.length > 0 ? (
          <section>
            <h4>Nodes removed</h4>
            <ul className="diff-list">
              {diff.nodes.removed.map((node) => (
                <li key={(node as GraphItem).id} className="diff-removed">
                  − {describeNode(node)}
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {diff.nodes.changed.map((node) => (
          <section key={node.id}>
            <h4>
              Node <code>{node.id}</code> changed
            </h4>
            <Changes changes={node.changes} />
          </section>
        ))}
        {diff.edges.added.length + diff.edges.removed.length + diff.edges.changed.length > 0 ? (
          <section>
            <h4>Connections</h4>
            <ul className="diff-list">
              {diff.edges.added.map((edge) => (
                <li key={`+${(edge as GraphItem).id}`} className="diff-added">
                  + {describeEdge(edge)}
                </li>
              ))}
              {diff.edges.removed.map((edge) => (
                <li key={`-${(edge as GraphItem).id}`} className="diff-removed">
                  − {describeEdge(edge)}
                </li>
              ))}
              {diff.edges.changed.map((edge) => (
                <li key={`~${edge.id}`}>~ {edge.id}</li>
              ))}
            </ul>
          </section>
        ) : null}
      </div>
    );
  }
  const others = diff.fields.filter((change) => change.field !== "instructions");
  return (
    <div className="diff" data-testid="diff">
      {others.length > 0 ? <Changes changes={others} /> : null}
      {diff.instructions ? (
        <section>
          <h4>Instructions</h4>
          <pre className="diff-lines">
            {diff.instructions.map((part, index) =>
              part.text
                .replace(/\n$/, "")
                .split("\n")
                .map((line, lineIndex) => (
                  <span
                    // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity of their own
                    key={`${index}-${lineIndex}`}
                    className={
                      part.op === "add" ? "diff-added" : part.op === "remove" ? "diff-removed" : undefined
                    }
                  >
                    {part.op === "add" ? "+ " : part.op === "remove" ? "− " : "  "}
                    {line}
                    {"\n"}
                  </span>
                )),
            )}
          </pre>
        </section>
      ) : null}
    </div>
  );
}
