import { defineErrors } from "@app/http";

export const LogErrors = defineErrors({
  MESSAGE_NOT_FOUND: {
    status: 404,
    message: "No answer with this id (only an agent's answers can be rated).",
  },
});
