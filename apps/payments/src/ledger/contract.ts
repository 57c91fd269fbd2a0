import { z } from "@hono/zod-openapi";

export const balanceSchema = z
  .object({
    object: z.literal("balance"),
    environment: z.string(),
    available: z.array(z.object({ amount: z.number(), currency: z.string() })),
  })
  .openapi("Balance");
