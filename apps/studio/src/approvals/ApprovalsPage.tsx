import { usePagedList } from "../api/paged.ts";
import type { PendingApprovalItem } from "../api/schema.gen.ts";
import { JsonTree } from "../ui/JsonTree.tsx";
import { EmptyState, formatDate, Link, Loading, LoadMore, PageHeader, QueryError } from "../ui/ui.tsx";
import { ApprovalActions } from "./ApprovalActions.tsx";

/** How often the inbox reads its pages again: new requests arrive as runs reach gated nodes. */
const REFRESH_MS = 5_000;

/**
 * The approvals inbox: every node of the workspace's runs waiting for a person, newest first, with
 * the request it would send; approve it as it is, edit it first, or reject it.
 */
export function ApprovalsPage() {
  const approvals = usePagedList<PendingApprovalItem>(["approvals"], "/api/approvals", {
    refetchInterval: () => REFRESH_MS,
  });
  const items = approvals.data ?? [];
  return (
    <>
      <PageHeader title="Approvals" />
      <p className="muted">
        Runs wait here at nodes that require approval. Approving sends the request (edited, if you edit it);
        rejecting fails the node, and its "when it fails" setting decides what the run does.
      </p>
      <QueryError query={approvals} />
      {approvals.isPending ? <Loading what="approvals" /> : null}
      {approvals.data && items.length === 0 ? (
        <EmptyState title="Nothing to approve">
          <p>Turn on "Requires approval" on an HTTP or Tool node, and its runs wait here.</p>
        </EmptyState>
      ) : null}
      <ul className="approval-list" aria-label="Pending approvals">
        {items.map((item) => (
          <li
            key={item.id}
            className="card approval-item"
            data-testid="approval-item"
            data-run-id={item.run_id}
          >
            <header className="approval-header">
              <strong>{item.title ?? item.node_id}</strong>{" "}
              <span className="muted">
                ({item.node_type}) in{" "}
                <Link to={`/workflows/${item.workflow_id}/runs`}>{item.workflow_name}</Link>
              </span>
              <span className="muted approval-when">
                Asked {formatDate(item.requested_at)}
                {item.expires_at
                  ? `; ${item.on_timeout === "fail" ? "the run fails" : "rejected automatically"} at ${formatDate(item.expires_at)}`
                  : ""}
              </span>
            </header>
            <p className="muted">
              Run <code>{item.run_id}</code>
            </p>
            <JsonTree label="Request" value={item.input} />
            <ApprovalActions runId={item.run_id} nodeId={item.node_id} input={item.input} />
          </li>
        ))}
      </ul>
      <LoadMore query={approvals} what="approvals" />
    </>
  );
}
