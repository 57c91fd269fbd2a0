import { useQueryClient } from "@tanstack/react-query";
import { type DragEvent, useEffect, useRef, useState } from "react";
import { Button, formatBytes, StatusBadge } from "../ui/ui.tsx";
import { documentState, type ProgressState } from "./document-state.ts";
import { documentsKey, type KnowledgeDocument } from "./queries.ts";
import { uploadDocument } from "./upload.ts";

const ACCEPT = ".pdf,.docx,.md,.markdown,.mdx,.html,.htm,.txt,.text,.csv,.json";
/** Files sent at once; the rest wait their turn, so a large drop leaves connections for the rest of the page. */
const PARALLEL_UPLOADS = 2;

interface Upload {
  key: string;
  file: File;
  phase: "waiting" | "uploading" | "sent" | "refused" | "cancelled";
  sent: number;
  error?: string;
  documentId?: string;
}

/**
 * Drop files (or choose them) to upload into a knowledge base. Each file shows its upload progress,
 * then its ingestion status from the documents list until it is ready or failed.
 */
export function Uploader({
  knowledgeBaseId,
  documents,
}: {
  knowledgeBaseId: string;
  documents: KnowledgeDocument[] | undefined;
}) {
  const client = useQueryClient();
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [isDragging, setDragging] = useState(false);
  const [chunking, setChunking] = useState({ size: 500, overlap: 50, isCustom: false });
  const input = useRef<HTMLInputElement>(null);
  const started = useRef(new Set<string>());
  const controllers = useRef(new Map<string, AbortController>());

  const update = (key: string, change: Partial<Upload>) =>
    setUploads((current) =>
      current.map((upload) => (upload.key === key ? { ...upload, ...change } : upload)),
    );

  useEffect(() => {
    const running = controllers.current;
    return () => {
      for (const controller of running.values()) controller.abort();
    };
  }, []);

  // A file dropped beside the zone would make the browser open it and leave the studio.
  useEffect(() => {
    const keep = (event: globalThis.DragEvent) => {
      if (event.dataTransfer?.types.includes("Files")) event.preventDefault();
    };
    window.addEventListener("dragover", keep);
    window.addEventListener("drop", keep);
    return () => {
      window.removeEventListener("dragover", keep);
      window.removeEventListener("drop", keep);
    };
  }, []);

  // biome-ignore lint/correctness/useExhaustiveDependencies: starts waiting uploads whenever the list changes
  useEffect(() => {
    const active = uploads.filter((upload) => upload.phase === "uploading").length;
    const next = uploads
      .filter((upload) => upload.phase === "waiting" && !started.current.has(upload.key))
      .slice(0, Math.max(0, PARALLEL_UPLOADS - active));
    for (const upload of next) {
      started.current.add(upload.key);
      const controller = new AbortController();
      controllers.current.set(upload.key, controller);
      update(upload.key, { phase: "uploading" });
      uploadDocument({
        knowledgeBaseId,
        file: upload.file,
        chunking: chunking.isCustom ? chunking : undefined,
        signal: controller.signal,
        onProgress: (sent) => update(upload.key, { sent }),
      })
        .then((document) => {
          update(upload.key, { phase: "sent", sent: upload.file.size, documentId: document.id });
          void client.invalidateQueries({ queryKey: documentsKey(knowledgeBaseId) });
        })
        .catch((error: unknown) => {
          if (controller.signal.aborted) return;
          update(upload.key, {
            phase: "refused",
            error: error instanceof Error ? error.message : String(error),
          });
        })
        .finally(() => controllers.current.delete(upload.key));
    }
  }, [uploads]);

  const add = (files: FileList | null) => {
    if (!files || files.length === 0) return;
    const stamp = Date.now();
    setUploads((current) => [
      ...[...files].map((file, index) => ({
        key: `${stamp}-${index}-${file.name}`,
        file,
        phase: "waiting" as const,
        sent: 0,
      })),
      ...current,
    ]);
  };

  const cancel = (key: string) => {
    controllers.current.get(key)?.abort();
    update(key, { phase: "cancelled" });
  };

  const byId = new Map((documents ?? []).map((document) => [document.id, document]));
  const states = uploads.map((upload) => ({ upload, state: describe(upload, byId) }));
  const hasFinished = states.some(({ state }) => state.isFinished);

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    add(event.dataTransfer.files);
  };

  return (
    <section className="card" aria-labelledby="upload-title">
      <h2 id="upload-title">Upload documents</h2>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target only; keyboard and screen reader users have the "Choose files" button inside it */}
      <div
        className={`dropzone${isDragging ? " is-dragging" : ""}`}
        data-testid="dropzone"
        onDragEnter={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragOver={(event) => {
          event.preventDefault();
          event.dataTransfer.dropEffect = "copy";
        }}
        onDragLeave={(event) => {
          if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
        }}
        onDrop={onDrop}
      >
        <p>
          <strong>Drop files here</strong> or
        </p>
        <Button variant="secondary" onClick={() => input.current?.click()}>
          Choose files
        </Button>
        <input
          ref={input}
          type="file"
          multiple
          accept={ACCEPT}
          className="visually-hidden"
          tabIndex={-1}
          aria-label="Files to upload"
          onChange={(event) => {
            add(event.target.files);
            event.target.value = "";
          }}
        />
        <p className="muted">PDF, DOCX, Markdown, HTML, plain text, CSV or JSON.</p>
      </div>
      <details className="chunking">
        <summary>Chunking</summary>
        <label className="inline">
          <input
            type="checkbox"
            checked={chunking.isCustom}
            onChange={(event) => setChunking({ ...chunking, isCustom: event.target.checked })}
          />
          Use my own chunk sizes for the next uploads
        </label>
        <div className="row">
          <label className="field">
            <span className="field-label">Chunk size (tokens)</span>
            <input
              type="number"
              min={50}
              max={8000}
              value={chunking.size}
              disabled={!chunking.isCustom}
              onChange={(event) => setChunking({ ...chunking, size: Number(event.target.value) })}
            />
          </label>
          <label className="field">
            <span className="field-label">Overlap (tokens)</span>
            <input
              type="number"
              min={0}
              max={4000}
              value={chunking.overlap}
              disabled={!chunking.isCustom}
              onChange={(event) => setChunking({ ...chunking, overlap: Number(event.target.value) })}
            />
          </label>
        </div>
      </details>
      {uploads.length > 0 ? (
        <>
          <div className="uploads-header">
            <h3>This session's uploads</h3>
            {hasFinished ? (
              <Button
                variant="secondary"
                onClick={() =>
                  setUploads((current) => current.filter((upload) => !describe(upload, byId).isFinished))
                }
              >
                Clear finished
              </Button>
            ) : null}
          </div>
          <ul className="uploads" aria-label="Uploads">
            {states.map(({ upload, state }) => (
              <li key={upload.key} className="upload" data-testid="upload">
                <div className="upload-title">
                  <span className="upload-name">{upload.file.name}</span>
                  <span className="muted">{formatBytes(upload.file.size)}</span>
                  <StatusBadge tone={state.tone}>{state.label}</StatusBadge>
                  {upload.phase === "waiting" || upload.phase === "uploading" ? (
                    <Button variant="secondary" onClick={() => cancel(upload.key)}>
                      Cancel
                    </Button>
                  ) : null}
                </div>
                {state.percent !== null ? (
                  <progress
                    max={100}
                    value={state.percent}
                    aria-label={`${upload.file.name}: ${state.label}`}
                  />
                ) : null}
                {state.detail ? (
                  <p className={state.tone === "danger" ? "field-error" : "muted"}>{state.detail}</p>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function describe(upload: Upload, documents: Map<string, KnowledgeDocument>): ProgressState {
  const total = Math.max(upload.file.size, 1);
  switch (upload.phase) {
    case "waiting":
      return { label: "Waiting", tone: "neutral", percent: 0, isFinished: false };
    case "uploading": {
      const percent = Math.min(100, Math.round((upload.sent / total) * 100));
      return { label: `Uploading ${percent}%`, tone: "busy", percent, isFinished: false };
    }
    case "refused":
      return {
        label: "Refused",
        tone: "danger",
        percent: null,
        isFinished: true,
        ...(upload.error ? { detail: upload.error } : {}),
      };
    case "cancelled":
      return { label: "Cancelled", tone: "neutral", percent: null, isFinished: true };
    case "sent":
      break;
  }
  const document = upload.documentId ? documents.get(upload.documentId) : undefined;
  if (!document) return { label: "Queued", tone: "busy", percent: 0, isFinished: false };
  return documentState(document);
}
