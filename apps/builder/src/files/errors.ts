import { defineErrors } from "@app/http";

export const FileErrors = defineErrors({
  FILE_NOT_FOUND: { status: 404, message: "No file with this id." },
  RANGE_NOT_SATISFIABLE: { status: 416, message: "The requested range starts past the end of the file." },
});
