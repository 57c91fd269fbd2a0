import { defineErrors } from "@app/http";

export const McpErrors = defineErrors({
  MCP_API_KEY_REQUIRED: {
    status: 401,
    message:
      "The MCP endpoint takes an API key (`Authorization: Bearer <key>` from POST /api/keys), not a session.",
  },
  MCP_OAUTH_NOT_ENABLED: {
    status: 422,
    message: "This MCP server was added without OAuth; add it again with `oauth: true` to authorize it.",
  },
  MCP_OAUTH_STATE_INVALID: {
    status: 400,
    message:
      "This authorization is unknown or was already used; start it again from the MCP server's settings.",
  },
  MCP_SERVER_NOT_FOUND: { status: 404, message: "No MCP server with this id." },
  MCP_URL_REFUSED: { status: 422, message: "The MCP server's URL is not allowed." },
  MCP_SECRETS_UNREADABLE: {
    status: 500,
    message:
      "The MCP server's stored secrets cannot be decrypted (was SECRET_KEY changed?). Delete the server and add it again.",
  },
  MCP_SERVER_REJECTED_CREDENTIALS: {
    status: 424,
    message:
      "The MCP server refused the connection's credentials (HTTP 401 or 403). Check its token or headers.",
  },
  MCP_SERVER_UNREACHABLE: {
    status: 502,
    message:
      "The MCP server could not be reached or did not speak MCP. Check its URL and that it is running.",
  },
  MCP_SERVER_TIMEOUT: { status: 504, message: "The MCP server did not answer in time." },
});
