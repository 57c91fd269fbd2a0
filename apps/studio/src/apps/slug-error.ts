import { ApiError } from "../api/client.ts";

/**
 * What to say beside the slug field: the 422's message, or the 409 of a slug another app holds.
 *
 * @example <Field label="Slug" error={slugError(save.error)}>…</Field>
 */
export function slugError(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === "slug_taken") return error.message;
  return error.fieldMessage("slug");
}

/**
 * The error for a form's `FormError`, unless it is the taken slug the slug field already shows.
 *
 * @example <FormError error={withoutSlugTaken(save.error)} fields={FIELDS} />
 */
export function withoutSlugTaken(error: unknown): unknown {
  return error instanceof ApiError && error.code === "slug_taken" ? null : error;
}
