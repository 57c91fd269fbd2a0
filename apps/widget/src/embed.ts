// embed.js: `<script src="<builder>/embed.js" data-app="{slug}" async></script>` puts a chat bubble on
// the page. Everything lives in an open shadow root on one host element (no iframe): the page's styles
// do not reach in, ours do not leak out, and tests and assistive technology see the panel as part of
// the page.
import { type ApiClient, ApiError, type AppConfig, createApiClient, describeError } from "./api.ts";
import { type ChatView, createChatView } from "./chat-view.ts";
import { adoptStyles, h, svgIcon } from "./dom.ts";
import { appStore } from "./store.ts";
import { CHAT_CSS, THEME_CSS, WIDGET_CSS } from "./styles.ts";
import { applyTheme } from "./theme.ts";

// Only while this script first runs does the browser say which <script> element it is.
const script = document.currentScript as HTMLScriptElement | null;

/** A speech bubble. */
const CHAT_ICON = "M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2z";

function mount(script: HTMLScriptElement): void {
  const slug = script.dataset.app;
  if (!slug) {
    console.error('embed.js: the script tag needs data-app="<the app\'s slug>".');
    return;
  }
  // One widget per app on a page, even if the snippet was pasted twice.
  if (document.querySelector(`app-chat-widget[data-app="${CSS.escape(slug)}"]`)) return;
  const base = new URL(script.src).origin;
  const store = appStore(slug);
  const api: ApiClient = createApiClient({ base, slug, store, userToken: script.dataset.userToken ?? null });

  // A custom element name: page rules written for div or button cannot match the host.
  const host = document.createElement("app-chat-widget");
  host.dataset.app = slug;
  if (script.dataset.position === "bottom-left") host.classList.add("left");
  const shadow = host.attachShadow({ mode: "open" });
  adoptStyles(shadow, THEME_CSS + CHAT_CSS + WIDGET_CSS);

  const bubble = h(
    "button",
    {
      type: "button",
      className: "bubble",
      "aria-label": "Open chat",
      "aria-expanded": "false",
      onclick: () => toggle(),
    },
    svgIcon(CHAT_ICON),
  );
  const wrap = h("div", { className: "theme bubble-wrap" }, bubble);
  shadow.append(wrap);

  let config: AppConfig | null = null;
  let refusal: string | null = null;
  let view: ChatView | null = null;
  let panel: HTMLElement | null = null;

  let isConfigLoading = false;
  // In the background from the start, so an open finds it ready; nothing waits for it.
  const loadConfig = () => {
    if (isConfigLoading || config || refusal) return;
    isConfigLoading = true;
    void api
      .config()
      .then(
        (answer) => {
          config = answer;
          applyTheme(wrap, answer.theme);
          view?.applyConfig(answer);
          panel?.setAttribute("aria-label", answer.title || "Chat");
        },
        (error: unknown) => {
          // Refused (a site not allowed, an unknown app): the bubble stays, and the panel says why
          // instead of taking messages. A lost connection or a 429 is not final: the next open asks
          // again, and sending meanwhile tries for itself and says what went wrong.
          if (!(error instanceof ApiError) || error.status === 0 || error.status === 429) return;
          refusal = describeError(error, api.isIdentified);
          view?.disable(refusal);
        },
      )
      .finally(() => {
        isConfigLoading = false;
      });
  };
  loadConfig();

  function open(isFocused: boolean) {
    if (!view || !panel) {
      view = createChatView({ api, store, layout: "panel", onClose: () => close() });
      panel = h(
        "div",
        { className: "panel", role: "dialog", "aria-label": config?.title || "Chat" },
        view.root,
      );
      panel.addEventListener("keydown", (event) => {
        if (event.key === "Escape" && !event.defaultPrevented) close();
      });
      if (config) view.applyConfig(config);
      if (refusal) view.disable(refusal);
      wrap.prepend(panel);
    }
    panel.hidden = false;
    bubble.setAttribute("aria-expanded", "true");
    bubble.setAttribute("aria-label", "Close chat");
    if (isFocused) view.input.focus();
    loadConfig();
    // The session and the conversation list are fetched on the first open, not for every visitor of
    // the host page: an anonymous end user exists once someone opens the chat.
    if (!refusal) {
      view.start();
      api.warmUp().catch(() => undefined);
    }
  }

  function close() {
    if (!panel) return;
    panel.hidden = true;
    bubble.setAttribute("aria-expanded", "false");
    bubble.setAttribute("aria-label", "Open chat");
    bubble.focus();
  }

  function toggle() {
    if (panel && !panel.hidden) close();
    else open(true);
  }

  const attach = () => {
    document.body.appendChild(host);
    if (script.dataset.open === "true") open(false);
  };
  if (document.body) attach();
  else document.addEventListener("DOMContentLoaded", attach, { once: true });
}

if (script) mount(script);
else console.error("embed.js must be loaded by a classic <script> tag (not a module or an inline import).");
