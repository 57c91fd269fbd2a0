import { defineErrors } from "@app/http";

export const WorkspaceErrors = defineErrors({
  WORKSPACE_NOT_FOUND: {
    status: 404,
    message:
      "No workspace with this id that you are a member of (any more). List yours with GET /api/workspaces and choose one with X-Workspace-Id or POST /api/workspaces/{id}/activate.",
  },
  FORBIDDEN_ROLE: { status: 403, message: "Your role in this workspace does not allow this." },
  SESSION_REQUIRED: {
    status: 403,
    message: "This is about your account, not one workspace: call it signed in, not with an API key.",
  },
  MEMBER_NOT_FOUND: { status: 404, message: "No member with this user id in this workspace." },
  OWNER_ROLE_FIXED: {
    status: 409,
    message:
      "The owner's role changes only by handing ownership over (POST /api/workspaces/current/transfer), and the owner cannot be removed.",
  },
  ALREADY_MEMBER: { status: 409, message: "This person is already a member of the workspace." },
  INVITATION_NOT_FOUND: { status: 404, message: "No invitation with this id." },
  INVITATION_EXPIRED: {
    status: 409,
    message: "This invitation has expired or was already used. Ask an admin of the workspace for a new one.",
  },
  INVITATION_FOR_ANOTHER_ADDRESS: {
    status: 403,
    message:
      "This invitation is for another e-mail address: sign in (or sign up) with the address it was sent to.",
  },
  PERSONAL_WORKSPACE: {
    status: 409,
    message: "A personal workspace cannot be deleted; it goes with the account (POST /api/auth/delete-user).",
  },
  TOO_MANY_INVITATIONS: {
    status: 429,
    message: "You sent many invitations in the last hour: wait before sending more (see Retry-After).",
  },
  WORKSPACE_HAS_MEMBERS: {
    status: 409,
    message:
      "You own workspaces that have other members: hand each over first (POST /api/workspaces/current/transfer), or remove its members.",
  },
});
