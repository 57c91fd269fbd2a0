/** A passage of a document to open on its knowledge base's page, scrolled to and marked. */
export interface PassageFocus {
  documentId: string;
  chunkId: string;
  /** 0-based order of the chunk in its document: how far the chunk list must be read. */
  position: number;
}

/**
 * The studio address that opens one passage: the knowledge base's page with the document's chunks
 * shown and the passage marked. Plain query parameters, so the link can be shared or opened in a tab.
 *
 * @example passageHref({ knowledge_base_id: "kb_1", document_id: "doc_1", chunk_id: "chk_1", position: 3 })
 */
export function passageHref(citation: {
  knowledge_base_id: string;
  document_id: string;
  chunk_id: string;
  position: number;
}): string {
  const query = new URLSearchParams({
    document: citation.document_id,
    chunk: citation.chunk_id,
    position: String(citation.position),
  });
  return `/knowledge/${encodeURIComponent(citation.knowledge_base_id)}?${query}`;
}

/** The passage the current address asks to open, if any. */
export function passageFocusOf(search: string): PassageFocus | null {
  const query = new URLSearchParams(search);
  const documentId = query.get("document");
  const chunkId = query.get("chunk");
  const positionText = query.get("position");
  // Number(null) and Number("") are 0: an absent position must not read as the first chunk.
  const position = positionText ? Number(positionText) : Number.NaN;
  if (!documentId || !chunkId || !Number.isInteger(position) || position < 0) return null;
  return { documentId, chunkId, position };
}
