import { defineErrors } from "@app/http";

export const ChatErrors = defineErrors({
  CONVERSATION_NOT_FOUND: { status: 404, message: "No conversation with this id." },
});
