import { type FormEvent, Fragment, useState } from "react";
import { navigate } from "../router.ts";
import {
  ACTIONS,
  Button,
  DataTable,
  EmptyState,
  ErrorBox,
  Field,
  FormError,
  fieldErrors,
  formatBytes,
  formatDate,
  Link,
  Loading,
  PageHeader,
  QueryError,
  StatusBadge,
} from "../ui/ui.tsx";
import { documentState } from "./document-state.ts";
import {
  type KnowledgeDocument,
  type SearchMode,
  useChunks,
  useDeleteDocument,
  useDeleteKnowledgeBase,
  useDocuments,
  useKnowledgeBase,
  useSearch,
} from "./queries.ts";
import { Uploader } from "./Uploader.tsx";

/** One knowledge base: upload, its documents with their ingestion status, and a retrieval test. */
export function KnowledgeBasePage({ id }: { id: string }) {
  const base = useKnowledgeBase(id);
  const documents = useDocuments(id);
  const remove = useDeleteKnowledgeBase();

  if (base.isPending) return <Loading what="the knowledge base" />;
  if (base.error)
    return (
      <>
        <p>
          <Link to="/knowledge">← Knowledge bases</Link>
        </p>
        <QueryError query={base} />
      </>
    );

  return (
    <>
      <p className="breadcrumb">
        <Link to="/knowledge">← Knowledge bases</Link>
      </p>
      <PageHeader
        title={base.data.name}
        actions={
          <Button
            variant="danger"
            isBusy={remove.isPending}
            onClick={() => {
              if (confirm(`Delete “${base.data.name}” with all its documents?`))
                remove.mutate(id, { onSuccess: () => navigate("/knowledge") });
            }}
          >
            Delete
          </Button>
        }
      />
      <ErrorBox error={remove.error} />
      <p className="muted">
        {base.data.description ? `${base.data.description} · ` : ""}
        Embeddings: {base.data.embedding.provider} · {base.data.embedding.model}
        {base.data.embedding.dimensions ? ` (${base.data.embedding.dimensions} dimensions)` : ""}
      </p>
      <div className="kb-page">
        <div className="stack">
          <Uploader knowledgeBaseId={id} documents={documents.data?.data} />
          <Documents baseId={id} query={documents} />
        </div>
        <RetrievalTest
          baseId={id}
          readyCount={documents.data?.data.filter((document) => document.status === "ready").length ?? 0}
        />
      </div>
    </>
  );
}

function Documents({ baseId, query }: { baseId: string; query: ReturnType<typeof useDocuments> }) {
  const remove = useDeleteDocument(baseId);
  const [openId, setOpenId] = useState<string | null>(null);
  const documents = query.data?.data ?? [];
  return (
    <section className="card" aria-labelledby="documents-title">
      <h2 id="documents-title">Documents</h2>
      <QueryError query={query} />
      <ErrorBox error={remove.error} />
      {query.isPending ? <Loading what="documents" /> : null}
      {query.data && documents.length === 0 ? (
        <EmptyState title="No documents yet">
          <p>Upload a file above; it becomes searchable once it is ready.</p>
        </EmptyState>
      ) : null}
      {documents.length > 0 ? (
        <DataTable label="Documents" columns={["Name", "Size", "Status", "Chunks", "Added", ACTIONS]}>
          {documents.map((document) => (
            <Fragment key={document.id}>
              <DocumentRow
                document={document}
                isOpen={openId === document.id}
                onToggle={() => setOpenId(openId === document.id ? null : document.id)}
                onDelete={() => {
                  if (confirm(`Delete “${document.name}”?`)) remove.mutate(document.id);
                }}
              />
              {openId === document.id ? (
                <tr>
                  <td colSpan={6}>
                    <Chunks documentId={document.id} />
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </DataTable>
      ) : null}
      {query.data?.has_more ? <p className="muted">Showing the newest 100 documents.</p> : null}
    </section>
  );
}

function DocumentRow({
  document,
  isOpen,
  onToggle,
  onDelete,
}: {
  document: KnowledgeDocument;
  isOpen: boolean;
  onToggle: () => void;
  onDelete: () => void;
}) {
  const state = documentState(document);
  return (
    <tr data-testid="document-row">
      <td>
        <div className="cell-title">{document.name}</div>
        <span className="muted">{document.format}</span>
      </td>
      <td className="nowrap">{formatBytes(document.size_bytes)}</td>
      <td>
        <StatusBadge tone={state.tone}>{state.label}</StatusBadge>
        {state.percent !== null ? (
          <progress max={100} value={state.percent} aria-label={`${document.name}: ${state.label}`} />
        ) : null}
        {document.status === "failed" ? <div className="field-error">{document.error}</div> : null}
      </td>
      <td>{document.status === "ready" ? document.chunk_count : "—"}</td>
      <td>{formatDate(document.created_at)}</td>
      <td className="cell-actions">
        <Button
          variant="secondary"
          onClick={onToggle}
          aria-expanded={isOpen}
          disabled={document.status !== "ready"}
          aria-label={`Chunks of ${document.name}`}
        >
          Chunks
        </Button>
        <Button variant="danger" onClick={onDelete} aria-label={`Delete ${document.name}`}>
          Delete
        </Button>
      </td>
    </tr>
  );
}

function Chunks({ documentId }: { documentId: string }) {
  const chunks = useChunks(documentId);
  const all = chunks.data?.pages.flatMap((page) => page.data) ?? [];
  return (
    <div className="chunks">
      <QueryError query={chunks} />
      {chunks.isPending ? <Loading what="chunks" /> : null}
      {chunks.data && all.length === 0 ? <p className="muted">This document has no chunks.</p> : null}
      <ol className="chunk-list">
        {all.map((chunk) => (
          <li key={chunk.id}>
            <div className="muted chunk-meta">
              #{chunk.position + 1}
              {chunk.page !== null ? ` · page ${chunk.page}` : ""}
              {chunk.heading_path.length ? ` · ${chunk.heading_path.join(" › ")}` : ""} · ~{chunk.token_count}{" "}
              tokens
            </div>
            <p className="chunk-text">{chunk.text}</p>
          </li>
        ))}
      </ol>
      {chunks.hasNextPage ? (
        <Button variant="secondary" isBusy={chunks.isFetchingNextPage} onClick={() => chunks.fetchNextPage()}>
          More chunks
        </Button>
      ) : null}
    </div>
  );
}

function RetrievalTest({ baseId, readyCount }: { baseId: string; readyCount: number }) {
  const search = useSearch(baseId);
  const [query, setQuery] = useState("");
  const [mode, setMode] = useState<SearchMode>("hybrid");
  const [topK, setTopK] = useState(5);
  const error = fieldErrors(search.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!query.trim()) return;
    search.mutate({ query, mode, top_k: topK });
  };

  return (
    <section className="card retrieval" aria-labelledby="retrieval-title">
      <h2 id="retrieval-title">Retrieval test</h2>
      <p className="muted">Ask what an agent would ask and see which passages it would get.</p>
      <form onSubmit={submit} aria-label="Retrieval test">
        <Field label="Query" error={error?.fieldMessage("query")}>
          <textarea
            name="query"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
            rows={2}
            required
          />
        </Field>
        <div className="row">
          <Field label="Mode" error={error?.fieldMessage("mode")}>
            <select name="mode" value={mode} onChange={(e) => setMode(e.target.value as SearchMode)}>
              <option value="hybrid">Hybrid</option>
              <option value="vector">Vector</option>
              <option value="fulltext">Full text</option>
            </select>
          </Field>
          <Field label="Results" error={error?.fieldMessage("top_k")}>
            <input
              name="top_k"
              type="number"
              min={1}
              max={100}
              value={topK}
              onChange={(e) => setTopK(Number(e.target.value))}
            />
          </Field>
        </div>
        <FormError error={search.error} fields={["query", "mode", "top_k"]} />
        <Button type="submit" isBusy={search.isPending}>
          Search
        </Button>
      </form>
      {readyCount === 0 && !search.data ? (
        <p className="muted">No document is ready yet, so nothing can be found.</p>
      ) : null}
      {search.data ? (
        <div aria-live="polite">
          <h3>
            {search.data.data.length === 0
              ? "No passage matched"
              : `${search.data.data.length} passage${search.data.data.length === 1 ? "" : "s"}`}{" "}
            <span className="muted">({search.data.mode})</span>
          </h3>
          <ol className="hits">
            {search.data.data.map((hit) => (
              <li key={hit.chunk_id} className="hit" data-testid="search-hit">
                <div className="hit-meta">
                  <span className="badge">score {hit.score.toFixed(4)}</span>
                  <strong>{hit.document_name}</strong>
                  <span className="muted">
                    chunk #{hit.position + 1}
                    {hit.page !== null ? ` · page ${hit.page}` : ""}
                    {hit.heading_path.length ? ` · ${hit.heading_path.join(" › ")}` : ""}
                  </span>
                </div>
                <p className="chunk-text">{hit.text}</p>
              </li>
            ))}
          </ol>
        </div>
      ) : null}
    </section>
  );
}
