import { defaultRequiredRole, REQUIRED_ROLE_EXTENSION, type RequiredRole } from "./roles.ts";

type Operation = {
  parameters?: unknown[];
  responses?: Record<string, unknown>;
  [REQUIRED_ROLE_EXTENSION]?: RequiredRole;
};

const METHODS = new Set(["get", "post", "put", "patch", "delete", "head"]);

const errorContent = { "application/json": { schema: { $ref: "#/components/schemas/Error" } } };

/**
 * Writes the workspace rules into the document: every operation the role check guards states the
 * role it needs (`x-required-role`, the method's default where the route declares none), takes
 * `X-Workspace-Id`, and may answer 403 `forbidden_role` and 404 `workspace_not_found`. Account
 * operations (`account`) may answer 403 `session_required` to an API key.
 *
 * @example completeWorkspaceAccess(document, (path) => PUBLIC_API_PATHS.some((p) => path.startsWith(p)));
 */
export function completeWorkspaceAccess<D extends { paths?: object }>(
  document: D,
  isPublic: (path: string) => boolean,
): D {
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (!path.startsWith("/api/") || isPublic(path)) continue;
    for (const [method, value] of Object.entries(item as Record<string, Operation>)) {
      if (!METHODS.has(method) || typeof value !== "object" || value === null) continue;
      const required = value[REQUIRED_ROLE_EXTENSION] ?? defaultRequiredRole(method);
      value[REQUIRED_ROLE_EXTENSION] = required;
      const responses = value.responses ?? {};
      if (required === "account") {
        responses["403"] ??= {
          description: "An API key called a route for signed-in people (session_required)",
          content: errorContent,
        };
      } else {
        value.parameters = [
          ...(value.parameters ?? []),
          {
            name: "X-Workspace-Id",
            in: "header",
            required: false,
            description:
              "The workspace to act in (one you are a member of). Default: the session's active workspace, else your personal one; an API key acts in its own.",
            schema: { type: "string", pattern: "^wsp_[0-9a-hjkmnp-tv-z]{26}$" },
          },
        ];
        responses["403"] ??= {
          description: `Your role is weaker than ${required} (forbidden_role)`,
          content: errorContent,
        };
        responses["404"] ??= {
          description: "Not found (or not yours); workspace_not_found: not a member of the workspace",
          content: errorContent,
        };
      }
      value.responses = responses;
    }
  }
  return document;
}
