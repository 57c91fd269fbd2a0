import { defineErrors } from "@app/http";

export const AnnotationErrors = defineErrors({
  ANNOTATION_NOT_FOUND: { status: 404, message: "No annotation with this id." },
  INVALID_IMPORT: {
    status: 422,
    message:
      "The CSV has rows that cannot be imported; nothing was imported. Each row's problem is in details.",
  },
});
