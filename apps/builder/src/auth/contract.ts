import { errorBodySchema } from "@app/http";
import { z } from "@hono/zod-openapi";

const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email({ message: "must be an e-mail address" }))
  .openapi({ example: "ada@example.com", format: "email" });

export const signUpBody = z
  .object({
    email,
    password: z.string().min(8, "must be at least 8 characters").max(128),
    name: z.string().trim().min(1).max(100),
  })
  .openapi("SignUpRequest");

export const signInBody = z.object({ email, password: z.string().min(1).max(128) }).openapi("SignInRequest");

const userSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    emailVerified: z.boolean(),
    image: z.string().nullable().optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("User");

export const authResult = z.object({ token: z.string(), user: userSchema }).openapi("AuthResult");
export const sessionResult = z
  .object({
    session: z.object({ id: z.string(), userId: z.string(), expiresAt: z.string() }).passthrough(),
    user: userSchema,
  })
  .nullable()
  .openapi("SessionResult");

/**
 * Our error shape plus the top-level `code` and `message` that better-auth's own client
 * (`authClient.signIn.email(…)` → `{ error: { code, message, status } }`) reads from its routes.
 */
export const authErrorBody = errorBodySchema
  .extend({
    code: z
      .string()
      .openapi({ example: "INVALID_EMAIL_OR_PASSWORD", description: "better-auth's error code" }),
    message: z.string(),
  })
  .openapi("AuthError");

export const signOutResult = z.object({ success: z.boolean() });
