import type { Tone } from "../ui/ui.tsx";
import type { KnowledgeDocument } from "./queries.ts";

/** Where an upload or a document stands, as a label, a tone and a percentage. */
export interface ProgressState {
  label: string;
  tone: Tone;
  /** 0–100 for the bar, or null when there is nothing to show progress of. */
  percent: number | null;
  detail?: string;
  isFinished: boolean;
}

/** The status of a document as a label, a tone and its progress. */
export function documentState(document: KnowledgeDocument): ProgressState {
  switch (document.status) {
    case "ready":
      return {
        label: "Ready",
        tone: "ok",
        percent: null,
        detail: `${document.chunk_count} chunk${document.chunk_count === 1 ? "" : "s"}`,
        isFinished: true,
      };
    case "failed":
      return {
        label: "Failed",
        tone: "danger",
        percent: null,
        detail: document.error ?? "Ingestion failed.",
        isFinished: true,
      };
    case "queued":
      return { label: "Queued", tone: "busy", percent: document.progress, isFinished: false };
    case "parsing":
      return {
        label: `Parsing ${document.progress}%`,
        tone: "busy",
        percent: document.progress,
        isFinished: false,
      };
    case "embedding":
      return {
        label: `Embedding ${document.progress}%`,
        tone: "busy",
        percent: document.progress,
        isFinished: false,
      };
  }
}
