import { defineErrors } from "@app/http";

export const ImportErrors = defineErrors({
  UNSUPPORTED_FORMAT_VERSION: {
    status: 422,
    message: "This document was written by a newer version of the builder; this server cannot read it.",
  },
  UNSUPPORTED_FORMAT: { status: 422, message: "This is not a document this server can import." },
  WRONG_DOCUMENT_KIND: { status: 422, message: "This document describes another kind of thing." },
  REFERENCE_NOT_FOUND: {
    status: 422,
    message: "A reference is mapped to something this workspace does not have.",
  },
  N8N_UNSUPPORTED_NODES: {
    status: 422,
    message: "Some of the n8n workflow's nodes have no counterpart here; nothing was imported.",
  },
  N8N_IMPORT_FAILED: { status: 422, message: "The n8n workflow cannot be imported." },
});
