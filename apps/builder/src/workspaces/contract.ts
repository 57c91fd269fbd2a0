import { idPattern, pathId } from "@app/http";
import { z } from "@hono/zod-openapi";
import { ASSIGNABLE_ROLES, ROLES } from "./roles.ts";

const role = z.enum(ROLES).openapi({ description: "owner > admin > editor > viewer (docs/teams.md)" });
const assignableRole = z
  .enum(ASSIGNABLE_ROLES)
  .openapi({ description: "admin, editor or viewer: ownership moves only by transfer" });
const name = z.string().trim().min(1).max(100);

export const workspaceSchema = z
  .object({
    id: z.string().openapi({ example: "wsp_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    name: z.string(),
    role: role.openapi({ description: "Your role in it" }),
    is_personal: z.boolean().openapi({ description: "Made for its owner at sign-up; goes with the account" }),
    is_current: z
      .boolean()
      .openapi({ description: "The workspace requests without X-Workspace-Id act in (for this session)" }),
    owner_user_id: z.string(),
    created_at: z.string(),
  })
  .openapi("Workspace");
export const workspaceList = z
  .object({ data: z.array(workspaceSchema), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .openapi("WorkspaceList");

export const createWorkspaceBody = z.object({ name }).strict().openapi("CreateWorkspaceRequest");
export const updateWorkspaceBody = z
  .object({ name })
  .strict()
  .openapi({ minProperties: 1 })
  .openapi("UpdateWorkspaceRequest");
export const workspaceIdParam = z.object({
  id: z
    .string()
    .regex(idPattern("wsp"), "must be a workspace id")
    .openapi({ param: { name: "id", in: "path" } }),
});
export const transferBody = z
  .object({ user_id: z.string().min(1).max(64).openapi({ description: "A member who becomes the owner" }) })
  .strict()
  .openapi("TransferOwnershipRequest");

export const memberSchema = z
  .object({
    user_id: z.string(),
    name: z.string(),
    email: z.string(),
    role,
    joined_at: z.string(),
  })
  .openapi("Member");
export const memberList = z
  .object({ data: z.array(memberSchema), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .openapi("MemberList");
export const userIdParam = z.object({ user_id: pathId("user_id") });
export const updateMemberBody = z.object({ role: assignableRole }).strict().openapi("UpdateMemberRequest");

const invitationStatus = z.enum(["pending", "accepted", "expired"]);
export const invitationSchema = z
  .object({
    id: z.string().openapi({ example: "inv_01jd3k6n0p7q8r9s0t1v2w3x4y" }),
    email: z.string(),
    role: assignableRole,
    status: invitationStatus,
    url: z
      .string()
      .openapi({ description: "The studio page of the invitation (the link the e-mail carries)" }),
    invited_by_user_id: z.string().nullable(),
    created_at: z.string(),
    expires_at: z.string(),
    accepted_at: z.string().nullable(),
  })
  .openapi("Invitation");
export const invitationList = z
  .object({ data: z.array(invitationSchema), has_more: z.boolean(), next_cursor: z.string().nullable() })
  .openapi("InvitationList");
/** What the invitee sees before accepting. */
export const receivedInvitationSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    role: assignableRole,
    status: invitationStatus,
    workspace: z.object({ id: z.string(), name: z.string() }),
    invited_by_name: z.string().nullable(),
    expires_at: z.string(),
    is_for_you: z
      .boolean()
      .openapi({ description: "Whether it was sent to your account's address (only then can you accept)" }),
  })
  .openapi("ReceivedInvitation");
export const createInvitationBody = z
  .object({
    email: z
      .string()
      .trim()
      .toLowerCase()
      .max(254)
      .pipe(z.email({ message: "must be an e-mail address" }))
      .openapi({ example: "grace@example.com", format: "email" }),
    role: assignableRole,
  })
  .strict()
  .openapi("CreateInvitationRequest");
export const invitationIdParam = z.object({ id: pathId("id") });
