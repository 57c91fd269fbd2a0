import { defineErrors } from "@app/http";

export const KnowledgeErrors = defineErrors({
  KNOWLEDGE_BASE_NOT_FOUND: { status: 404, message: "No knowledge base with this id." },
  DOCUMENT_NOT_FOUND: { status: 404, message: "No document with this id." },
  DUPLICATE_DOCUMENT: {
    status: 409,
    message: "This knowledge base already holds a document with the same content.",
  },
  FILE_TOO_LARGE: { status: 413, message: "The file is larger than the upload limit." },
  UNSUPPORTED_FILE_TYPE: {
    status: 415,
    message: "Unsupported file type: upload PDF, DOCX, Markdown, HTML, plain text, CSV or JSON.",
  },
  NOT_MULTIPART: {
    status: 415,
    message: "Upload the file as multipart/form-data with the fields `file` and `knowledge_base_id`.",
  },
  MALFORMED_MULTIPART: { status: 400, message: "The multipart body could not be read." },
  EMPTY_FILE: { status: 422, message: "The file is empty." },
  EMBEDDING_PROVIDER_UNSUPPORTED: {
    status: 422,
    message:
      "This provider offers no embedding models here: use local, openai, google, mistral, cohere or openai-compatible.",
  },
  QUERY_EMBEDDING_FAILED: { status: 502, message: "The query could not be embedded." },
  VECTOR_SEARCH_UNAVAILABLE: {
    status: 422,
    message:
      "Vector and hybrid search need the pgvector extension, which this database does not have; use mode=fulltext or install pgvector.",
  },
});
