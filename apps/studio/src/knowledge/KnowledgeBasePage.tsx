import { type FormEvent, Fragment, useEffect, useRef, useState } from "react";
import { navigate, useQueryString } from "../router.ts";
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
  LoadMore,
  PageHeader,
  QueryError,
  StatusBadge,
} from "../ui/ui.tsx";
import { documentState } from "./document-state.ts";
import { type PassageFocus, passageFocusOf, passageHref } from "./passage-link.ts";
import {
  type KnowledgeDocument,
  type SearchHit,
  type SearchMode,
  useChunks,
  useDeleteDocument,
  useDeleteKnowledgeBase,
  useDocument,
  useDocuments,
  useKnowledgeBase,
  useSearch,
} from "./queries.ts";
import { relevance, relevanceText, type ScoreScale, scaleOf } from "./relevance.ts";
import { Uploader } from "./Uploader.tsx";

/** One knowledge base: upload, its documents with their ingestion status, and a retrieval test. */
export function KnowledgeBasePage({ id }: { id: string }) {
  const base = useKnowledgeBase(id);
  const documents = useDocuments(id);
  const remove = useDeleteKnowledgeBase();
  // A citation's link (or a search hit's) names the passage to open in the address (passage-link.ts).
  const focus = passageFocusOf(useQueryString());

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
      {focus ? (
        <PassageView
          key={focus.chunkId}
          focus={focus}
          onClose={() => navigate(`/knowledge/${id}`, { replace: true })}
        />
      ) : null}
      <div className="kb-page">
        <Uploader knowledgeBaseId={id} documents={documents.data} />
        <Documents baseId={id} query={documents} />
      </div>
      <RetrievalTest
        baseId={id}
        readyCount={documents.data?.filter((document) => document.status === "ready").length ?? 0}
      />
    </>
  );
}

function Documents({ baseId, query }: { baseId: string; query: ReturnType<typeof useDocuments> }) {
  const remove = useDeleteDocument(baseId);
  const [openId, setOpenId] = useState<string | null>(null);
  const documents = query.data ?? [];
  return (
    <section className="card kb-documents" aria-labelledby="documents-title">
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
      <LoadMore query={query} what="documents" />
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

/** The cited passage's document, its chunks read up to the passage, which is marked and scrolled to. */
function PassageView({ focus, onClose }: { focus: PassageFocus; onClose: () => void }) {
  const document = useDocument(focus.documentId);
  return (
    <section className="card passage-view" aria-labelledby="passage-title">
      <div className="passage-view-header">
        <h2 id="passage-title">{document.data ? document.data.name : "Cited passage"}</h2>
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      </div>
      <QueryError query={document} />
      {document.data ? <Chunks documentId={focus.documentId} focus={focus} /> : null}
    </section>
  );
}

function Chunks({ documentId, focus }: { documentId: string; focus?: PassageFocus }) {
  // A cited passage may sit deep in a long document: bigger pages reach it in fewer requests.
  const chunks = useChunks(documentId, focus ? 100 : 20);
  const all = chunks.data?.pages.flatMap((page) => page.data) ?? [];
  const lastPosition = all.at(-1)?.position ?? -1;
  const isFocusLoaded = focus !== undefined && lastPosition >= focus.position;
  const isFocusFound = focus !== undefined && all.some((chunk) => chunk.id === focus.chunkId);
  const focused = useRef<HTMLLIElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = chunks;

  // Pages are read in document order until the cited position is in.
  useEffect(() => {
    if (focus && !isFocusLoaded && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [focus, isFocusLoaded, hasNextPage, isFetchingNextPage, fetchNextPage]);
  useEffect(() => {
    if (isFocusFound) focused.current?.scrollIntoView({ block: "center" });
  }, [isFocusFound]);

  return (
    <div className="chunks">
      <QueryError query={chunks} />
      {chunks.isPending ? <Loading what="chunks" /> : null}
      {chunks.data && all.length === 0 ? <p className="muted">This document has no chunks.</p> : null}
      {focus && chunks.data && !isFocusFound && (isFocusLoaded || !hasNextPage) ? (
        <p className="muted" role="status">
          The cited passage is no longer in this document (it was ingested again since); its current chunks
          are below.
        </p>
      ) : null}
      <ol className="chunk-list">
        {all.map((chunk) => {
          const isFocused = chunk.id === focus?.chunkId;
          return (
            <li
              key={chunk.id}
              ref={isFocused ? focused : undefined}
              className={isFocused ? "chunk-focused" : undefined}
              data-testid={isFocused ? "focused-chunk" : undefined}
            >
              <div className="muted chunk-meta">
                {isFocused ? <span className="badge badge-accent">Cited passage</span> : null}#
                {chunk.position + 1}
                {chunk.page !== null ? ` · page ${chunk.page}` : ""}
                {chunk.heading_path.length ? ` · ${chunk.heading_path.join(" › ")}` : ""} · ~
                {chunk.token_count} tokens
              </div>
              <p className="chunk-text">{isFocused ? <mark>{chunk.text}</mark> : chunk.text}</p>
            </li>
          );
        })}
      </ol>
      {chunks.hasNextPage ? (
        <Button variant="secondary" isBusy={chunks.isFetchingNextPage} onClick={() => chunks.fetchNextPage()}>
          More chunks
        </Button>
      ) : null}
    </div>
  );
}

const MODES: { mode: SearchMode; label: string; hint: string }[] = [
  { mode: "fulltext", label: "Full text", hint: "the query's words (BM25)" },
  { mode: "vector", label: "Vector", hint: "meaning (embeddings)" },
  { mode: "hybrid", label: "Hybrid", hint: "both, fused (what agents use)" },
];

/** One query in the three modes side by side, so a person sees what each finds and in which order. */
function RetrievalTest({ baseId, readyCount }: { baseId: string; readyCount: number }) {
  const fulltext = useSearch(baseId);
  const vector = useSearch(baseId);
  const hybrid = useSearch(baseId);
  const searches = { fulltext, vector, hybrid };
  const [query, setQuery] = useState("");
  const [topK, setTopK] = useState(5);
  // The form's fields are the same for the three searches: one answer's field errors speak for all.
  const error = fieldErrors(fulltext.error ?? hybrid.error);
  const isBusy = fulltext.isPending || vector.isPending || hybrid.isPending;
  // A failure of all three (no connection, a refused query) is the form's; one mode's alone is its column's.
  const isAllFailed = MODES.every(({ mode }) => searches[mode].error);
  const hasAnswers = !isAllFailed && MODES.some(({ mode }) => searches[mode].data || searches[mode].error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!query.trim()) return;
    for (const { mode } of MODES) searches[mode].mutate({ query, mode, top_k: topK });
  };
  // Where each mode put each chunk, so a column can say "#3 in full text" beside its own rank.
  const ranksOf = (chunkId: string, except: SearchMode) =>
    MODES.flatMap(({ mode, label }) => {
      if (mode === except) return [];
      const rank = searches[mode].data?.data.findIndex((hit) => hit.chunk_id === chunkId) ?? -1;
      return rank >= 0 ? [`#${rank + 1} in ${label.toLowerCase()}`] : [];
    });

  return (
    <section className="card retrieval" aria-labelledby="retrieval-title">
      <h2 id="retrieval-title">Retrieval test</h2>
      <p className="muted">
        Ask what an agent would ask and compare which passages each search mode finds, in order.
      </p>
      <form onSubmit={submit} aria-label="Retrieval test" className="retrieval-form">
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
        <Field label="Results per mode" error={error?.fieldMessage("top_k")}>
          <input
            name="top_k"
            type="number"
            min={1}
            max={100}
            value={topK}
            onChange={(e) => setTopK(Number(e.target.value))}
          />
        </Field>
        <Button type="submit" isBusy={isBusy}>
          Search
        </Button>
        {isAllFailed ? <FormError error={fulltext.error} fields={["query", "top_k"]} /> : null}
      </form>
      {readyCount === 0 && !hasAnswers ? (
        <p className="muted">No document is ready yet, so nothing can be found.</p>
      ) : null}
      {hasAnswers ? (
        <div className="mode-columns" aria-live="polite">
          {MODES.map(({ mode, label, hint }) => {
            const search = searches[mode];
            const hits = search.data?.data ?? [];
            return (
              <section
                key={mode}
                className="mode-column"
                aria-label={`${label} results`}
                data-testid={`mode-${mode}`}
              >
                <h3>
                  {label} <span className="muted">· {hint}</span>
                </h3>
                <FormError error={search.error} fields={["query", "top_k"]} />
                {search.isPending ? <Loading what={`${label.toLowerCase()} results`} /> : null}
                {search.data && hits.length === 0 ? <p className="muted">No passage matched.</p> : null}
                <ol className="hits">
                  {hits.map((hit, index) => (
                    <Hit
                      key={hit.chunk_id}
                      hit={hit}
                      rank={index + 1}
                      best={hits[0]?.score ?? 0}
                      max={search.data?.max_score ?? null}
                      elsewhere={ranksOf(hit.chunk_id, mode)}
                    />
                  ))}
                </ol>
              </section>
            );
          })}
        </div>
      ) : null}
    </section>
  );
}

const SCALE_TITLES: Record<ScoreScale, string> = {
  bm25: "Relevance as a share of the best passage full text found",
  similarity: "How similar this passage is to the question (strong from 50 %, medium from 30 %)",
  fused: "From where each ranking placed this passage: strong when it is near the top of every one",
};

function Hit({
  hit,
  rank,
  best,
  max,
  elsewhere,
}: {
  hit: SearchHit;
  rank: number;
  best: number;
  max: number | null;
  elsewhere: string[];
}) {
  const scale = scaleOf(max);
  const value = relevance(hit.score, { best, max, scale });
  return (
    <li className="hit" data-testid="search-hit">
      <div className="hit-meta">
        <span className="rank">
          <span className="visually-hidden">Rank </span>#{rank}
          {/* Read aloud, rank and badge would otherwise run together ("Rank #1strong"). */}
          <span className="visually-hidden">, </span>
        </span>
        <span className={`badge relevance relevance-${value.label}`} title={SCALE_TITLES[scale]}>
          {relevanceText(value, scale)}
        </span>
        <Link to={passageHref(hit)} title="Open the passage in its document">
          <strong>{hit.document_name}</strong>
        </Link>
        <span className="muted">
          passage {hit.position + 1}
          {hit.page !== null ? ` · page ${hit.page}` : ""}
          {hit.heading_path.length ? ` · ${hit.heading_path.join(" › ")}` : ""}
        </span>
      </div>
      {elsewhere.length ? <div className="muted hit-elsewhere">Also {elsewhere.join(", ")}</div> : null}
      <p className="chunk-text">{hit.text}</p>
    </li>
  );
}
