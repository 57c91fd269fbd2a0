import { defineErrors } from "@app/http";

export const KeyErrors = defineErrors({
  API_KEY_NOT_FOUND: { status: 404, message: "No API key with this id." },
});
