import { defineErrors } from "@app/http";

export const VersionErrors = defineErrors({
  VERSION_NOT_FOUND: { status: 404, message: "No published version with this number." },
});
