// webapp.js: the page at /a/{slug}. An agent gets the chat filling the window (its conversations in a
// sidebar that folds away on phones); a workflow gets its form and outputs.
import { createApiClient, describeError } from "./api.ts";
import { createChatView } from "./chat-view.ts";
import { adoptStyles, h } from "./dom.ts";
import { appStore } from "./store.ts";
import { CHAT_CSS, PAGE_CSS, THEME_CSS } from "./styles.ts";
import { createWorkflowView } from "./workflow-view.ts";

async function main() {
  const app = document.getElementById("app");
  if (!app) return;
  adoptStyles(document, THEME_CSS + CHAT_CSS + PAGE_CSS);
  let slug = "";
  try {
    slug = decodeURIComponent(location.pathname.split("/")[2] ?? "");
  } catch {
    // A malformed address: the lookup below fails as for an unknown app.
  }
  const store = appStore(slug);
  const api = createApiClient({ base: location.origin, slug, store });
  app.replaceChildren(h("p", { className: "loading", role: "status" }, "Loading…"));
  let config: Awaited<ReturnType<typeof api.config>>;
  try {
    config = await api.config();
  } catch (error) {
    app.replaceChildren(h("p", { className: "loading", role: "alert" }, describeError(error)));
    return;
  }
  document.title = config.title || document.title;
  document.body.classList.toggle("dark", config.theme.dark);
  if (config.kind === "workflow") {
    app.replaceChildren(createWorkflowView(api, config));
    return;
  }
  const view = createChatView({ api, store, layout: "page" });
  view.applyConfig(config);
  app.replaceChildren(view.root);
  view.start();
  view.input.focus();
}

void main();
