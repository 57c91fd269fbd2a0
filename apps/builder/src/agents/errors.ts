import { defineErrors } from "@app/http";

export const AgentErrors = defineErrors({
  AGENT_NOT_FOUND: { status: 404, message: "No agent with this id." },
  CONVERSATION_NOT_FOUND: { status: 404, message: "No conversation with this id." },
});
