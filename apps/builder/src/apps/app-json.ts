import type { AppKeyRow, AppRow } from "./schema.ts";

/** Escapes a value for an HTML attribute in the snippets people paste. */
function attribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

export function toAppJson(row: AppRow, context: { publicUrl: string }) {
  const webUrl = `${context.publicUrl}/a/${row.slug}`;
  const scriptUrl = `${context.publicUrl}/embed.js`;
  return {
    id: row.id,
    kind: row.kind,
    agent_id: row.agentId,
    workflow_id: row.workflowId,
    name: row.name,
    slug: row.slug,
    title: row.title,
    description: row.description,
    theme: row.theme,
    starter_prompts: row.starterPrompts,
    allowed_origins: row.allowedOrigins,
    rate_limit: row.rateLimit ?? null,
    end_user_credit_limit: row.endUserCreditLimit,
    web_url: webUrl,
    embed: {
      script_url: scriptUrl,
      snippet: `<script src="${attribute(scriptUrl)}" data-app="${attribute(row.slug)}" async></script>`,
      iframe_snippet: `<iframe src="${attribute(webUrl)}" title="${attribute(row.title)}" style="width:100%;height:640px;border:0" allow="clipboard-write"></iframe>`,
    },
    end_user_secret_hint: row.endUserSecretHint,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function toAppKeyJson(row: AppKeyRow) {
  return {
    id: row.id,
    app_id: row.appId,
    name: row.name,
    prefix: row.prefix,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
  };
}
