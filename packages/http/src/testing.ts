import { z } from "zod";

/** The parts of an OpenAPI 3.1 document the conformance check and the fuzz test read. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
  security?: unknown[];
}

export interface OpenApiOperation {
  parameters?: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
  security?: unknown[];
  /** Groups of query parameters of which a request may send one at most (the fuzz generator reads it). */
  "x-mutually-exclusive-parameters"?: string[][];
}

export type JsonSchema = { [key: string]: unknown };

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** One documented operation: its method, path template and the regex that matches a concrete path. */
export interface DocumentedOperation {
  method: string;
  template: string;
  operation: OpenApiOperation;
  matches(path: string): boolean;
}

/**
 * Every operation of a document, most specific paths first (`/a/new` before `/a/{id}`).
 *
 * @example for (const { method, template } of documentedOperations(document)) …
 */
export function documentedOperations(document: OpenApiDocument): DocumentedOperation[] {
  const out: DocumentedOperation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const pattern = new RegExp(
      `^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}/?$`,
    );
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation) out.push({ method, template, operation, matches: (path) => pattern.test(path) });
    }
  }
  const literalLength = (template: string) => template.replace(/\{[^}]+\}/g, "").length;
  return out.sort((a, b) => literalLength(b.template) - literalLength(a.template));
}

/**
 * Where an object a JSON request body can hold leaves `additionalProperties` unsaid, so zod drops
 * unknown keys there instead of refusing them: `"POST /api/agents (CreateAgentRequest).tools[] (AgentTool)|0"`.
 * Paths starting with one of `skipPaths` are not looked at.
 *
 * @example expect(looseRequestObjects(document, ["/api/auth/"])).toEqual([]);
 */
export function looseRequestObjects(document: OpenApiDocument, skipPaths: readonly string[] = []): string[] {
  const found = new Set<string>();
  const schemas = document.components?.schemas ?? {};
  const visit = (schema: JsonSchema, at: string, seen: ReadonlySet<string>): void => {
    const ref = schema.$ref;
    if (typeof ref === "string") {
      const name = ref.split("/").at(-1) ?? "";
      const target = schemas[name];
      if (target && !seen.has(ref)) visit(target, `${at} (${name})`, new Set([...seen, ref]));
      return;
    }
    // An alternative that only narrows properties (a cross-field rule's `anyOf`) has no type of its own.
    if (schema.type === "object" && schema.additionalProperties === undefined) found.add(at);
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const [name, child] of Object.entries(properties)) visit(child, `${at}.${name}`, seen);
    for (const key of ["anyOf", "oneOf", "allOf"] as const) {
      for (const [i, child] of ((schema[key] as JsonSchema[] | undefined) ?? []).entries())
        visit(child, `${at}|${i}`, seen);
    }
    if (schema.items && typeof schema.items === "object") visit(schema.items as JsonSchema, `${at}[]`, seen);
    if (schema.additionalProperties && typeof schema.additionalProperties === "object")
      visit(schema.additionalProperties as JsonSchema, `${at}{}`, seen);
  };
  for (const { method, template, operation } of documentedOperations(document)) {
    if (skipPaths.some((prefix) => template.startsWith(prefix))) continue;
    const schema = operation.requestBody?.content?.["application/json"]?.schema;
    if (schema) visit(schema, `${method.toUpperCase()} ${template}`, new Set());
  }
  return [...found];
}

/**
 * Checks observed responses against an OpenAPI document: the status must be one the operation
 * declares, and a JSON body must match the declared schema. Paths the document does not describe
 * (the studio, the docs page) are not checked.
 *
 * @example const check = openApiConformance(document); const problem = await check("GET", "/api/agents", response);
 */
export function openApiConformance(document: OpenApiDocument) {
  const operations = documentedOperations(document);
  const validators = new Map<string, z.ZodType>();
  const validatorFor = (key: string, schema: JsonSchema) => {
    let validator = validators.get(key);
    if (!validator) {
      validator = z.fromJSONSchema(withDefinitions(schema, document) as never, {
        defaultTarget: "draft-2020-12",
      });
      validators.set(key, validator);
    }
    return validator;
  };
  return async (method: string, pathAndQuery: string, response: Response): Promise<string | undefined> => {
    const path = pathAndQuery.split("?")[0] ?? "";
    const found = operations.find(
      (candidate) => candidate.method === method.toLowerCase() && candidate.matches(path),
    );
    if (!found) return undefined;
    const where = `${method.toUpperCase()} ${found.template} → ${response.status}`;
    const responses = found.operation.responses ?? {};
    const declared = responses[String(response.status)] ?? responses.default;
    if (!declared)
      return `${where}: the status is not in the document (it has ${Object.keys(responses).join(", ")})`;
    const type = response.headers.get("content-type") ?? "";
    const schema = declared.content?.["application/json"]?.schema;
    if (!type.includes("application/json") || !schema) return undefined;
    const text = await response.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return `${where}: the body is not JSON`;
    }
    const result = validatorFor(`${method} ${found.template} ${response.status}`, schema).safeParse(body);
    if (result.success) return undefined;
    const issues = result.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    return `${where}: the body does not match the document (${issues.join("; ")}): ${text.slice(0, 300)}`;
  };
}

/** The schema with the document's components as `$defs`, so its `$ref`s resolve. */
export function withDefinitions(schema: JsonSchema, document: OpenApiDocument): JsonSchema {
  const rewrite = (value: unknown) =>
    withoutCrossFieldRules(
      JSON.parse(JSON.stringify(value).replaceAll('"#/components/schemas/', '"#/$defs/')),
    ) as JsonSchema;
  return { ...rewrite(schema), $defs: rewrite(document.components?.schemas ?? {}) };
}

/**
 * The schema without an object's cross-field rules (`oneOf`/`anyOf` of constraint-only alternatives,
 * which use `not`): zod's JSON Schema import has no `not`, and they constrain requests, which the
 * fuzz generator applies itself, not the answers this check reads.
 */
function withoutCrossFieldRules(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCrossFieldRules);
  if (value === null || typeof value !== "object") return value;
  const schema = value as JsonSchema;
  const out: JsonSchema = {};
  for (const [key, each] of Object.entries(schema)) {
    const isRuleList =
      (key === "oneOf" || key === "anyOf") &&
      schema.properties !== undefined &&
      Array.isArray(each) &&
      (each as JsonSchema[]).every(isConstraintOnly);
    if (!isRuleList) out[key] = withoutCrossFieldRules(each);
  }
  return out;
}

/** A request the fuzz test sends: what it should be (`isValid`) and what it is. */
export interface FuzzRequest {
  isValid: boolean;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What was changed to make it invalid, for the failure message. */
  mutation?: string;
}

// Deep enough for the workflow import (body → graph → nodes → node → data → cases → conditions → …).
const MAX_DEPTH = 16;

/**
 * Values the generator takes for properties of these names instead of inventing them: ids of objects
 * the test created, where the document says an id must name one of the caller's objects (a reference
 * no schema can check).
 */
export type KnownValues = Readonly<Record<string, readonly string[]>>;

/** An alternative of `oneOf`/`anyOf` that only constrains an object (required, excluded, narrowed properties). */
function isConstraintOnly(schema: JsonSchema): boolean {
  return schema.type === undefined && schema.$ref === undefined && !Array.isArray(schema.enum);
}

/**
 * A fast-check arbitrary of values a JSON Schema (as OpenAPI documents hold it) accepts. Bounds
 * are kept small so requests stay cheap; URL-shaped strings point at `.invalid` hosts, which never
 * resolve, so no generated request reaches the network.
 *
 * @example fc.sample(arbitraryOf(fc, schema, document), 3)
 */
export function arbitraryOf(
  fc: typeof import("fast-check"),
  schema: JsonSchema | undefined,
  document: OpenApiDocument,
  depth = 0,
  known: KnownValues = {},
): import("fast-check").Arbitrary<unknown> {
  if (!schema || depth > MAX_DEPTH) return fc.constant(null);
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const name = ref.replace("#/components/schemas/", "");
    return arbitraryOf(fc, document.components?.schemas?.[name], document, depth + 1, known);
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ("const" in schema) return fc.constant(schema.const);
  const alternatives = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  // An object with cross-field rules (`oneOf: [{ required: [a], not: { required: [b] } }, …]`): one
  // alternative's rules applied to the object's own properties.
  if (alternatives && schema.properties && alternatives.every(isConstraintOnly)) {
    const { anyOf: _any, oneOf: _one, ...base } = schema;
    return fc.oneof(
      ...alternatives.map((alternative) => {
        const excluded = new Set(((alternative.not as JsonSchema | undefined)?.required as string[]) ?? []);
        const properties = Object.fromEntries(
          Object.entries({
            ...(base.properties as Record<string, JsonSchema>),
            ...(alternative.properties as Record<string, JsonSchema> | undefined),
          }).filter(([name]) => !excluded.has(name)),
        );
        const required = [
          ...((base.required as string[] | undefined) ?? []),
          ...((alternative.required as string[] | undefined) ?? []),
        ].filter((name) => !excluded.has(name));
        return arbitraryOf(fc, { ...base, properties, required }, document, depth, known);
      }),
    );
  }
  if (alternatives)
    return fc.oneof(...alternatives.map((each) => arbitraryOf(fc, each, document, depth + 1, known)));
  if (Array.isArray(schema.allOf))
    return arbitraryOf(fc, (schema.allOf as JsonSchema[])[0], document, depth + 1, known);
  const type = schema.type;
  if (Array.isArray(type)) {
    return fc.oneof(
      ...type.map((each) => arbitraryOf(fc, { ...schema, type: each }, document, depth, known)),
    );
  }
  const minimum = (schema.minimum as number | undefined) ?? (schema.exclusiveMinimum as number | undefined);
  const maximum = (schema.maximum as number | undefined) ?? (schema.exclusiveMaximum as number | undefined);
  switch (type) {
    case "string":
      return stringArbitrary(fc, schema);
    case "integer":
      return fc.integer({
        min: Math.ceil(
          Math.max(minimum ?? -1000, -1_000_000) + (schema.exclusiveMinimum === undefined ? 0 : 1),
        ),
        max: Math.floor(
          Math.min(maximum ?? 1000, 1_000_000) - (schema.exclusiveMaximum === undefined ? 0 : 1),
        ),
      });
    case "number":
      // Whole numbers: they satisfy any `multipleOf` of 0.01 or 1 alike.
      return fc.integer({
        min:
          schema.exclusiveMinimum === undefined
            ? Math.ceil(minimum ?? 0)
            : Math.floor(schema.exclusiveMinimum as number) + 1,
        max: Math.floor(Math.min(maximum ?? 1000, 1_000_000)),
      });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const minLength = (schema.minItems as number | undefined) ?? 0;
      const maxLength = Math.max(minLength, Math.min((schema.maxItems as number | undefined) ?? 2, 2));
      // At the depth limit an item would be null: an empty array, where allowed, is valid instead.
      if (depth + 1 > MAX_DEPTH && minLength === 0) return fc.constant([]);
      return fc.array(arbitraryOf(fc, schema.items as JsonSchema | undefined, document, depth + 1, known), {
        minLength,
        maxLength,
      });
    }
    case "object":
    case undefined: {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      if (Object.keys(properties).length === 0) {
        if (type !== "object") return fc.jsonValue({ maxDepth: 1 });
        // A record: keys as `propertyNames` says (header names, …), values as `additionalProperties`.
        const names = schema.propertyNames as JsonSchema | undefined;
        const values = schema.additionalProperties;
        return fc.dictionary(
          names ? stringArbitrary(fc, { maxLength: 8, ...names }) : fc.string({ maxLength: 8 }),
          typeof values === "object" && values !== null && Object.keys(values).length > 0
            ? arbitraryOf(fc, values as JsonSchema, document, depth + 1, known)
            : fc.string({ maxLength: 8 }),
          { maxKeys: 2 },
        );
      }
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const model: Record<string, import("fast-check").Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) {
        const values = known[name];
        if (values?.length && property.type === "array") model[name] = fc.subarray([...values]);
        else if (values?.length) model[name] = fc.constantFrom(...values);
        else model[name] = arbitraryOf(fc, property, document, depth + 1, known);
      }
      return fc.record(model, { requiredKeys: [...required].filter((name) => name in properties) });
    }
    default:
      return fc.constant(null);
  }
}

function stringArbitrary(fc: typeof import("fast-check"), schema: JsonSchema) {
  const minLength = (schema.minLength as number | undefined) ?? 0;
  const maxLength = Math.max(minLength, Math.min((schema.maxLength as number | undefined) ?? 24, 24));
  const format = schema.format as string | undefined;
  if (format === "email") return fc.constantFrom("ada@example.com", "grace@example.org");
  if (format === "uri" || format === "url") return fc.constant("https://fuzz.invalid/hook");
  if (format === "date-time") return fc.constant("2026-01-01T00:00:00.000Z");
  if (typeof schema.pattern === "string") {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter(
        (value) =>
          value.length >= minLength && value.length <= ((schema.maxLength as number | undefined) ?? 10_000),
      );
  }
  return fc.string({ minLength, maxLength, unit: "grapheme" });
}

/** Ways to make a request invalid, each something a careless or hostile client sends. */
const MUTATIONS = [
  "nul-in-string",
  "lone-surrogate",
  "malformed-json",
  "text-plain",
  "wrong-type",
  "unknown-field",
  "garbage-path",
  "garbage-query",
  "huge-integer",
  "invalid-utf8-path",
] as const;

/**
 * Requests for one documented operation: valid ones built from its schemas, and invalid ones made
 * from a valid one by a mutation. Path parameters come from `pathValues` when the test knows real
 * ids, else from their schema.
 *
 * @example fc.assert(fc.asyncProperty(fuzzRequests(fc, document, operation, {}), async (request) => …));
 */
export function fuzzRequests(
  fc: typeof import("fast-check"),
  document: OpenApiDocument,
  documented: DocumentedOperation,
  pathValues: Record<string, string[]>,
  known: KnownValues = {},
): import("fast-check").Arbitrary<FuzzRequest> {
  const { operation, template, method } = documented;
  const parameters = operation.parameters ?? [];
  const pathParameters = parameters.filter((parameter) => parameter.in === "path");
  const queryParameters = parameters.filter((parameter) => parameter.in === "query");
  const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
  const pathArbitrary = fc.record(
    Object.fromEntries(
      pathParameters.map((parameter) => [
        parameter.name,
        pathValues[parameter.name]?.length
          ? fc.constantFrom(...(pathValues[parameter.name] as string[]))
          : (arbitraryOf(fc, parameter.schema, document) as import("fast-check").Arbitrary<unknown>).map(
              String,
            ),
      ]),
    ),
  );
  const queryArbitrary = fc.record(
    Object.fromEntries(
      queryParameters.map((parameter) => [parameter.name, arbitraryOf(fc, parameter.schema, document)]),
    ),
    {
      requiredKeys: queryParameters
        .filter((parameter) => parameter.required)
        .map((parameter) => parameter.name),
    },
  );
  const bodyArbitrary = bodySchema ? arbitraryOf(fc, bodySchema, document, 0, known) : fc.constant(undefined);
  const exclusive = (operation["x-mutually-exclusive-parameters"] ?? []) as string[][];
  return fc
    .record({
      path: pathArbitrary,
      query: queryArbitrary,
      body: bodyArbitrary,
      mutation: fc.option(fc.constantFrom(...MUTATIONS), { freq: 2 }),
      noise: fc.string({ minLength: 1, maxLength: 12, unit: "binary" }),
    })
    .map(({ path: pathPicked, query: queryPicked, body, mutation, noise }) => {
      const pathValuesOf = { ...pathPicked } as Record<string, string>;
      const queryOf = { ...queryPicked } as Record<string, unknown>;
      // Of parameters that exclude each other, a valid request sends at most the first one present.
      for (const group of exclusive) {
        const present = group.filter((name) => queryOf[name] !== undefined);
        for (const name of present.slice(1)) delete queryOf[name];
      }
      let bodyText = body === undefined ? undefined : JSON.stringify(body);
      let contentType = "application/json";
      let rawPathSegment: string | undefined;
      const firstPathName = pathParameters[0]?.name;
      switch (mutation ?? undefined) {
        case "nul-in-string":
        case "lone-surrogate": {
          const bad = mutation === "nul-in-string" ? "\u0000" : "\ud800";
          if (bodyText !== undefined && typeof body === "object" && body !== null && !Array.isArray(body)) {
            bodyText = JSON.stringify({
              ...(body as object),
              [Object.keys(body as object)[0] ?? "x"]: `a${bad}b`,
            });
          } else if (firstPathName) pathValuesOf[firstPathName] = `x${bad}`;
          else queryOf.q = `x${bad}`;
          break;
        }
        case "malformed-json":
          bodyText = `${bodyText ?? "{"}${noise}`.slice(0, -1);
          break;
        case "text-plain":
          contentType = "text/plain";
          bodyText ??= noise;
          break;
        case "wrong-type":
          if (bodyText !== undefined) bodyText = JSON.stringify(Array.isArray(body) ? { x: body } : [body]);
          else if (queryParameters[0]) queryOf[queryParameters[0].name] = { nested: noise };
          break;
        case "unknown-field":
          if (typeof body === "object" && body !== null)
            bodyText = JSON.stringify({ ...(body as object), zz_unknown: noise });
          else queryOf.zz_unknown = noise;
          break;
        case "garbage-path":
          if (firstPathName) pathValuesOf[firstPathName] = noise;
          break;
        case "garbage-query":
          for (const parameter of queryParameters) queryOf[parameter.name] = noise;
          break;
        case "huge-integer":
          for (const parameter of queryParameters) queryOf[parameter.name] = "2147483648";
          if (typeof body === "object" && body !== null && !Array.isArray(body)) {
            const key = Object.keys(body as object)[0];
            if (key) bodyText = JSON.stringify({ ...(body as object), [key]: 2 ** 53 + 2 });
          }
          break;
        case "invalid-utf8-path":
          rawPathSegment = "%ff%fe";
          break;
      }
      let requestPath = template;
      for (const parameter of pathParameters) {
        const value =
          parameter.name === firstPathName && rawPathSegment
            ? rawPathSegment
            : encodePathValue(pathValuesOf[parameter.name] ?? "x");
        requestPath = requestPath.replace(`{${parameter.name}}`, value || "x");
      }
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(queryOf)) {
        if (value !== undefined && value !== null)
          search.set(name, typeof value === "string" ? value : JSON.stringify(value));
      }
      const queryText = search.toString();
      const hasBody = bodyText !== undefined && method !== "get" && method !== "delete";
      const request: FuzzRequest = {
        isValid: mutation === null,
        method: method.toUpperCase(),
        path: queryText === "" ? requestPath : `${requestPath}?${queryText}`,
        headers: hasBody ? { "content-type": contentType } : ({} as Record<string, string>),
        ...(hasBody ? { body: bodyText } : {}),
        ...(mutation === null ? {} : { mutation }),
      };
      return request;
    });
}

/** A lone surrogate has no UTF-8 form: it is sent as the bytes a careless encoder would produce (ED A0 80). */
function encodePathValue(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return `${encodeURIComponent(value.replace(/[\ud800-\udfff]/g, ""))}%ED%A0%80`;
  }
}

/**
 * Sends a request again once when the connection was reset before an answer: a pooled keep-alive
 * socket can be closed by the server just as a request is written on it (likelier on a loaded
 * machine). A server that resets the connection for this request every time still fails.
 *
 * @example const response = await retryOnReset(() => fetch(url, init));
 */
export async function retryOnReset(send: () => Promise<Response>): Promise<Response> {
  try {
    return await send();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (!(error instanceof TypeError) || cause?.code !== "ECONNRESET") throw error;
    return send();
  }
}
