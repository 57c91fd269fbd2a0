import { errorResponses, idParam, jsonContent, listOf } from "@app/http";
import { createRoute, type z } from "@hono/zod-openapi";
import { diffParams, publishVersionBody, versionListQuery, versionParams } from "./contract.ts";
import { ifMatchHeaders } from "./revisions.ts";

/**
 * The route definitions of a resource's versions (publish, list, get, diff, restore), the same for
 * agents and workflows; each feature registers its own handlers on them.
 *
 * @example const routes = versionRouteDefinitions({ tag: "agents", noun: "agent", base: "/{id}", version: agentVersionSchema, diff: agentDiffSchema, resource: agentSchema, listName: "AgentVersionList" });
 */
export function versionRouteDefinitions<V extends z.ZodType, D extends z.ZodType, R extends z.ZodType>(of: {
  tag: string;
  noun: string;
  /** The path of one resource relative to the router, e.g. `/{id}` or `/workflows/{id}`. */
  base: string;
  version: V;
  diff: D;
  resource: R;
  listName: string;
}) {
  const tags = [of.tag];
  return {
    publish: createRoute({
      method: "post",
      path: `${of.base}/versions`,
      tags,
      summary: `Publish the ${of.noun}'s draft as its next version`,
      description:
        "Apps, the MCP endpoint and other outside callers then use this version; the draft stays editable. With an `evaluation_gate` set, the draft is evaluated first, within this request (up to two minutes): a mean under `min_score` is 409 `evaluation_gate_failed` with the scores and the evaluation's id in `details`, a gate that does not finish in time 504 `evaluation_gate_timeout`; `force: true` publishes without the gate and the version records that it skipped it.",
      request: { params: idParam, body: { required: false, content: jsonContent(publishVersionBody) } },
      responses: {
        201: { description: "The new version", content: jsonContent(of.version) },
        ...errorResponses(400, 401, 402, 404, 409, 422, 504),
      },
    }),
    list: createRoute({
      method: "get",
      path: `${of.base}/versions`,
      tags,
      summary: `The ${of.noun}'s published versions, newest first`,
      request: { params: idParam, query: versionListQuery },
      responses: {
        200: {
          description: "A page of versions",
          content: jsonContent(listOf(of.version).openapi(of.listName)),
        },
        ...errorResponses(401, 404, 422),
      },
    }),
    get: createRoute({
      method: "get",
      path: `${of.base}/versions/{version}`,
      tags,
      summary: `One published version of the ${of.noun}`,
      request: { params: versionParams },
      responses: {
        200: { description: "The version", content: jsonContent(of.version) },
        ...errorResponses(401, 404, 422),
      },
    }),
    diff: createRoute({
      method: "get",
      path: `${of.base}/versions/{a}/diff/{b}`,
      tags,
      summary: "What changed from one version (or the draft) to another",
      request: { params: diffParams },
      responses: {
        200: { description: "The differences", content: jsonContent(of.diff) },
        ...errorResponses(401, 404, 422),
      },
    }),
    restore: createRoute({
      method: "post",
      path: `${of.base}/versions/{version}/restore`,
      tags,
      summary: "Make a version's content the draft (the history keeps everything)",
      request: { params: versionParams, headers: ifMatchHeaders },
      responses: {
        200: { description: `The ${of.noun} with its restored draft`, content: jsonContent(of.resource) },
        ...errorResponses(401, 404, 412, 422),
      },
    }),
  };
}
