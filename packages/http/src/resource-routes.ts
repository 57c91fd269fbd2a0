import { createRoute, type z } from "@hono/zod-openapi";
import { errorResponses, idParam, jsonContent } from "./openapi.ts";

/**
 * The definitions of the five routes a stored resource has (list, get, create, update, delete),
 * bound to the resource's tag and answer schema. Only the declarations are shared: the handlers stay
 * in the feature's `routes.ts`, since what each does around its use case (side effects, scopes,
 * checks) is the feature's own. A route outside these five is declared with `createRoute` as usual.
 *
 * @example
 * const routes = resourceRoutes({ tag: "agents", schema: agentSchema });
 * const getRoute = routes.get({ summary: "Get an agent", description: "The agent" });
 * const deleteRoute = routes.delete({ summary: "Delete an agent" });
 */
export function resourceRoutes<T extends z.ZodType>(resource: { tag: string; schema: T }) {
  return {
    /** `GET /`: a page of the resource; `page` is the list envelope of the app. */
    list<Q extends z.ZodObject, P extends z.ZodType>(route: {
      summary: string;
      description: string;
      query: Q;
      page: P;
    }) {
      return createRoute({
        method: "get",
        path: "/",
        tags: [resource.tag],
        summary: route.summary,
        request: { query: route.query },
        responses: {
          200: { description: route.description, content: jsonContent(route.page) },
          ...errorResponses(401, 422),
        },
      });
    },

    /** `GET /{id}`: one of them, 404 when the caller has none with that id. */
    get(route: { summary: string; description: string }) {
      return createRoute({
        method: "get",
        path: "/{id}",
        tags: [resource.tag],
        summary: route.summary,
        request: { params: idParam },
        responses: {
          200: { description: route.description, content: jsonContent(resource.schema) },
          ...errorResponses(401, 404),
        },
      });
    },

    /** `POST /`: creates one from a JSON body and answers it with 201. */
    create<B extends z.ZodType>(route: { summary: string; description: string; body: B; errors: number[] }) {
      return createRoute({
        method: "post",
        path: "/",
        tags: [resource.tag],
        summary: route.summary,
        request: { body: { required: true, content: jsonContent(route.body) } },
        responses: {
          201: { description: route.description, content: jsonContent(resource.schema) },
          ...errorResponses(...route.errors),
        },
      });
    },

    /** `PATCH /{id}`: changes some fields and answers the resource; `headers` documents request headers such as If-Match. */
    update<B extends z.ZodType, H extends z.ZodObject = z.ZodObject>(route: {
      summary: string;
      description: string;
      body: B;
      errors: number[];
      headers?: H;
    }) {
      return createRoute({
        method: "patch",
        path: "/{id}",
        tags: [resource.tag],
        summary: route.summary,
        request: {
          params: idParam,
          ...(route.headers ? { headers: route.headers } : {}),
          body: { required: true, content: jsonContent(route.body) },
        },
        responses: {
          200: { description: route.description, content: jsonContent(resource.schema) },
          ...errorResponses(...route.errors),
        },
      });
    },

    /** `DELETE /{id}`: 204, or 404 when the caller has none with that id. */
    delete(route: { summary: string }) {
      return createRoute({
        method: "delete",
        path: "/{id}",
        tags: [resource.tag],
        summary: route.summary,
        request: { params: idParam },
        responses: { 204: { description: "Deleted" }, ...errorResponses(401, 404) },
      });
    },
  };
}
