import { createRouter, errorResponses, jsonContent, listQuerySchema, toPage } from "@app/http";
import { createRoute } from "@hono/zod-openapi";
import { apiKeyCredential, type PrincipalCache } from "../auth/principal-cache.ts";
import { setActiveWorkspace } from "../auth/users.ts";
import type { Deps } from "../deps.ts";
import type { AppEnv, Principal } from "../env.ts";
import type { Mailer } from "../mail/mailer.ts";
import { acceptInvitation } from "./accept-invitation.ts";
import { changeMemberRole } from "./change-member-role.ts";
import {
  createInvitationBody,
  createWorkspaceBody,
  invitationIdParam,
  invitationList,
  invitationSchema,
  memberList,
  receivedInvitationSchema,
  transferBody,
  updateMemberBody,
  updateWorkspaceBody,
  userIdParam,
  workspaceIdParam,
  workspaceList,
  workspaceSchema,
} from "./contract.ts";
import { createInvitation } from "./create-invitation.ts";
import { createWorkspace } from "./create-workspace.ts";
import { deleteWorkspace } from "./delete-workspace.ts";
import { WorkspaceErrors } from "./errors.ts";
import { getWorkspace } from "./get-workspace.ts";
import { toInvitationJson } from "./invitation-json.ts";
import { listInvitations } from "./list-invitations.ts";
import { listMembers } from "./list-members.ts";
import { listMyWorkspaces } from "./list-my-workspaces.ts";
import type { MembershipCache } from "./memberships.ts";
import { receivedInvitation } from "./received-invitation.ts";
import { removeMember } from "./remove-member.ts";
import { renameWorkspace } from "./rename-workspace.ts";
import { revokeInvitation } from "./revoke-invitation.ts";
import { audited, type Role, requires } from "./roles.ts";
import type { WorkspaceRow } from "./schema.ts";
import { transferOwnership } from "./transfer-ownership.ts";

export interface AccessCaches {
  principals: PrincipalCache;
  memberships: MembershipCache;
}

function toWorkspaceJson(row: WorkspaceRow, role: Role, principal: Principal) {
  return {
    id: row.id,
    name: row.name,
    role,
    is_personal: row.isPersonal,
    is_current: row.id === principal.workspaceId,
    owner_user_id: row.ownerUserId,
    created_at: row.createdAt.toISOString(),
  };
}

const tags = ["workspaces"];

const listWorkspacesRoute = createRoute({
  method: "get",
  path: "/",
  tags,
  summary: "The workspaces you are a member of, with your role in each",
  ...requires("account"),
  responses: {
    200: { description: "Your workspaces", content: jsonContent(workspaceList) },
    ...errorResponses(401, 403),
  },
});

const createWorkspaceRoute = createRoute({
  ...audited("workspace.created"),
  method: "post",
  path: "/",
  tags,
  summary: "Create a workspace that you own (it starts without credits)",
  ...requires("account"),
  request: { body: { required: true, content: jsonContent(createWorkspaceBody) } },
  responses: {
    201: { description: "Created", content: jsonContent(workspaceSchema) },
    ...errorResponses(401, 403, 422),
  },
});

const currentWorkspaceRoute = createRoute({
  method: "get",
  path: "/current",
  tags,
  summary:
    "The workspace this request acts in (X-Workspace-Id, else the session's active one, else your default)",
  responses: {
    200: { description: "The workspace", content: jsonContent(workspaceSchema) },
    ...errorResponses(401, 403, 404),
  },
});

const renameWorkspaceRoute = createRoute({
  ...audited("workspace.renamed"),
  method: "patch",
  path: "/current",
  tags,
  summary: "Rename the workspace",
  ...requires("admin"),
  request: { body: { required: true, content: jsonContent(updateWorkspaceBody) } },
  responses: {
    200: { description: "Renamed", content: jsonContent(workspaceSchema) },
    ...errorResponses(401, 403, 404, 422),
  },
});

const deleteWorkspaceRoute = createRoute({
  ...audited(""),
  method: "delete",
  path: "/current",
  tags,
  summary: "Delete the workspace with everything in it (not a personal workspace)",
  ...requires("owner"),
  responses: { 204: { description: "Deleted" }, ...errorResponses(401, 403, 404, 409) },
});

const transferRoute = createRoute({
  ...audited("workspace.ownership_transferred"),
  method: "post",
  path: "/current/transfer",
  tags,
  summary: "Hand ownership to another member; you stay on as an admin",
  ...requires("owner"),
  request: { body: { required: true, content: jsonContent(transferBody) } },
  responses: {
    200: { description: "The workspace, with your new role", content: jsonContent(workspaceSchema) },
    ...errorResponses(401, 403, 404, 422),
  },
});

const activateRoute = createRoute({
  method: "post",
  path: "/{id}/activate",
  tags,
  summary: "Make a workspace of yours the one this session acts in when a request names none",
  ...requires("account"),
  request: { params: workspaceIdParam },
  responses: {
    200: { description: "Now current", content: jsonContent(workspaceSchema) },
    ...errorResponses(401, 403, 404),
  },
});

/** `/api/workspaces`: the person's workspaces, and the current one's settings and ownership. */
export function workspaceRoutes(deps: Deps, caches: AccessCaches) {
  const router = createRouter<AppEnv>();
  router.openapi(listWorkspacesRoute, async (c) => {
    const principal = c.get("principal");
    const rows = await listMyWorkspaces(deps.db, principal.userId);
    const data = rows.map(({ workspace, role }) => toWorkspaceJson(workspace, role, principal));
    return c.json({ data, has_more: false, next_cursor: null }, 200);
  });
  router.openapi(createWorkspaceRoute, async (c) => {
    const principal = c.get("principal");
    const row = await createWorkspace(deps, principal.userId, c.req.valid("json").name);
    c.set("audit", { workspaceId: row.id, targetId: row.id });
    return c.json(toWorkspaceJson(row, "owner", principal), 201);
  });
  router.openapi(currentWorkspaceRoute, async (c) => {
    const principal = c.get("principal");
    const row = await getWorkspace(deps.db, principal.workspaceId);
    if (!row) throw WorkspaceErrors.WORKSPACE_NOT_FOUND();
    return c.json(toWorkspaceJson(row, principal.role, principal), 200);
  });
  router.openapi(renameWorkspaceRoute, async (c) => {
    const principal = c.get("principal");
    const row = await renameWorkspace(deps.db, principal.workspaceId, c.req.valid("json").name);
    if (!row) throw WorkspaceErrors.WORKSPACE_NOT_FOUND();
    return c.json(toWorkspaceJson(row, principal.role, principal), 200);
  });
  router.openapi(deleteWorkspaceRoute, async (c) => {
    const { workspaceId } = c.get("principal");
    await deleteWorkspace(deps.db, workspaceId);
    caches.memberships.forgetWorkspace(workspaceId);
    return c.body(null, 204);
  });
  router.openapi(transferRoute, async (c) => {
    const principal = c.get("principal");
    const to = c.req.valid("json").user_id;
    await transferOwnership(deps.db, principal.workspaceId, principal.userId, to);
    caches.memberships.forget(principal.workspaceId, principal.userId);
    caches.memberships.forget(principal.workspaceId, to);
    const row = await getWorkspace(deps.db, principal.workspaceId);
    if (!row) throw WorkspaceErrors.WORKSPACE_NOT_FOUND();
    return c.json(toWorkspaceJson(row, to === principal.userId ? "owner" : "admin", principal), 200);
  });
  router.openapi(activateRoute, async (c) => {
    const principal = c.get("principal");
    const { id } = c.req.valid("param");
    const role = await caches.memberships.role(id, principal.userId);
    const row = role ? await getWorkspace(deps.db, id) : undefined;
    if (!role || !row || !principal.sessionId) throw WorkspaceErrors.WORKSPACE_NOT_FOUND();
    await setActiveWorkspace(deps.db, principal.sessionId, id);
    caches.principals.deleteSession(principal.sessionId);
    return c.json(toWorkspaceJson(row, role, { ...principal, workspaceId: id }), 200);
  });
  return router;
}

const memberTags = ["members"];

const listMembersRoute = createRoute({
  method: "get",
  path: "/",
  tags: memberTags,
  summary: "The workspace's members and their roles",
  responses: {
    200: { description: "The members", content: jsonContent(memberList) },
    ...errorResponses(401, 403, 404),
  },
});

const updateMemberRoute = createRoute({
  ...audited("member.role_changed"),
  method: "patch",
  path: "/{user_id}",
  tags: memberTags,
  summary: "Change a member's role (not the owner's: see the transfer)",
  ...requires("admin"),
  request: { params: userIdParam, body: { required: true, content: jsonContent(updateMemberBody) } },
  responses: {
    200: { description: "The members after the change", content: jsonContent(memberList) },
    ...errorResponses(401, 403, 404, 409, 422),
  },
});

const removeMemberRoute = createRoute({
  ...audited("member.removed"),
  method: "delete",
  path: "/{user_id}",
  tags: memberTags,
  summary: "Remove a member: their sessions lose the workspace at once and their API keys of it are revoked",
  ...requires("admin"),
  request: { params: userIdParam },
  responses: { 204: { description: "Removed" }, ...errorResponses(401, 403, 404, 409) },
});

/** `/api/members`: the current workspace's members. */
export function memberRoutes(deps: Deps, caches: AccessCaches) {
  const router = createRouter<AppEnv>();
  const page = async (workspaceId: string) => ({
    data: (await listMembers(deps.db, workspaceId)) as {
      user_id: string;
      name: string;
      email: string;
      role: Role;
      joined_at: string;
    }[],
    has_more: false,
    next_cursor: null,
  });
  router.openapi(listMembersRoute, async (c) => c.json(await page(c.get("principal").workspaceId), 200));
  router.openapi(updateMemberRoute, async (c) => {
    const { workspaceId } = c.get("principal");
    const { user_id } = c.req.valid("param");
    await changeMemberRole(deps.db, workspaceId, user_id, c.req.valid("json").role);
    caches.memberships.forget(workspaceId, user_id);
    return c.json(await page(workspaceId), 200);
  });
  router.openapi(removeMemberRoute, async (c) => {
    const { workspaceId } = c.get("principal");
    const { user_id } = c.req.valid("param");
    const revokedKeys = await removeMember(deps.db, workspaceId, user_id);
    caches.memberships.forget(workspaceId, user_id);
    for (const keyHash of revokedKeys) caches.principals.delete(apiKeyCredential(keyHash));
    return c.body(null, 204);
  });
  return router;
}

const invitationTags = ["invitations"];

const listInvitationsRoute = createRoute({
  method: "get",
  path: "/",
  tags: invitationTags,
  summary: "The workspace's invitations, newest first, with their links",
  ...requires("admin"),
  request: { query: listQuerySchema },
  responses: {
    200: { description: "A page of invitations", content: jsonContent(invitationList) },
    ...errorResponses(401, 403, 404),
  },
});

const createInvitationRoute = createRoute({
  ...audited("invitation.created"),
  method: "post",
  path: "/",
  tags: invitationTags,
  summary:
    "Invite someone by e-mail with a role (the e-mail links to the studio's /invitations/{id}; valid 7 days)",
  ...requires("admin"),
  request: { body: { required: true, content: jsonContent(createInvitationBody) } },
  responses: {
    201: { description: "Invited; the e-mail is on its way", content: jsonContent(invitationSchema) },
    ...errorResponses(401, 403, 404, 409, 422, 429),
  },
});

const getInvitationRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: invitationTags,
  summary: "An invitation as its invitee sees it (the page behind the e-mail's link)",
  ...requires("account"),
  request: { params: invitationIdParam },
  responses: {
    200: { description: "The invitation", content: jsonContent(receivedInvitationSchema) },
    ...errorResponses(401, 403, 404),
  },
});

const acceptInvitationRoute = createRoute({
  ...audited("invitation.accepted"),
  method: "post",
  path: "/{id}/accept",
  tags: invitationTags,
  summary: "Accept an invitation sent to your address: join its workspace with its role",
  ...requires("account"),
  request: { params: invitationIdParam },
  responses: {
    200: { description: "The workspace you joined", content: jsonContent(workspaceSchema) },
    ...errorResponses(401, 403, 404, 409),
  },
});

const deleteInvitationRoute = createRoute({
  ...audited("invitation.withdrawn"),
  method: "delete",
  path: "/{id}",
  tags: invitationTags,
  summary: "Withdraw an invitation: its link stops working",
  ...requires("admin"),
  request: { params: invitationIdParam },
  responses: { 204: { description: "Withdrawn" }, ...errorResponses(401, 403, 404) },
});

/** `/api/invitations`: inviting people to the current workspace, and accepting an invitation. */
export function invitationRoutes(deps: Deps & { mailer: Mailer }, caches: AccessCaches) {
  const router = createRouter<AppEnv>();
  const context = () => ({ publicUrl: deps.config.publicUrl, now: deps.clock.now() });
  router.openapi(listInvitationsRoute, async (c) => {
    const query = c.req.valid("query");
    const rows = await listInvitations(deps.db, c.get("principal").workspaceId, query);
    const now = context();
    return c.json(
      toPage(rows, query.limit, (row) => toInvitationJson(row, now)),
      200,
    );
  });
  router.openapi(createInvitationRoute, async (c) => {
    const principal = c.get("principal");
    const row = await createInvitation(
      { ...deps, publicUrl: deps.config.publicUrl },
      principal.workspaceId,
      principal.userId,
      c.req.valid("json"),
    );
    return c.json(toInvitationJson(row, context()), 201);
  });
  router.openapi(getInvitationRoute, async (c) => {
    const { json } = await receivedInvitation(deps, c.req.valid("param").id, c.get("principal").userId);
    return c.json(json, 200);
  });
  router.openapi(acceptInvitationRoute, async (c) => {
    const principal = c.get("principal");
    const workspaceId = await acceptInvitation(deps, c.req.valid("param").id, principal.userId);
    c.set("audit", { workspaceId, targetId: principal.userId });
    caches.memberships.forget(workspaceId, principal.userId);
    const row = await getWorkspace(deps.db, workspaceId);
    const role = await caches.memberships.role(workspaceId, principal.userId);
    if (!row || !role) throw WorkspaceErrors.WORKSPACE_NOT_FOUND();
    return c.json(toWorkspaceJson(row, role, principal), 200);
  });
  router.openapi(deleteInvitationRoute, async (c) => {
    await revokeInvitation(deps.db, c.get("principal").workspaceId, c.req.valid("param").id);
    return c.body(null, 204);
  });
  return router;
}
