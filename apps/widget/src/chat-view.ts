// The chat: conversations of this end user, messages with streamed answers, citations, feedback,
// starter prompts and the composer. The same view fills the widget's panel and the web app's page.
import {
  type ApiClient,
  ApiError,
  type AppConfig,
  type Citation,
  type Conversation,
  describeError,
  type Message,
  type Rating,
} from "./api.ts";
import { h, svgIcon, uniqueId } from "./dom.ts";
import { renderMarkdown } from "./markdown.ts";
import type { AppStore } from "./store.ts";
import { applyTheme } from "./theme.ts";

export interface ChatView {
  root: HTMLElement;
  /** The composer; usable as soon as the view exists, before any answer from the server. */
  input: HTMLTextAreaElement;
  /** Loads the conversation list and the remembered conversation (once; later calls do nothing). */
  start(): void;
  applyConfig(config: AppConfig): void;
  /** The app cannot be used here (refused origin, unknown app): says why and stops sending. */
  disable(message: string): void;
}

/**
 * Builds the chat view. Nothing waits for the network: a message sent before the app's config or
 * the end user's session arrived waits for them inside the API client.
 *
 * @example const view = createChatView({ api, store, layout: "panel", onClose: hide }); shadow.append(view.root);
 */
export function createChatView(options: {
  api: ApiClient;
  store: AppStore;
  layout: "panel" | "page";
  onClose?: () => void;
}): ChatView {
  const { api, store } = options;
  let conversationId = store.get("conversation");
  let isBusy = false;
  let isStarted = false;
  let isDisabled = false;
  let starterPrompts: string[] = [];
  let conversations: Conversation[] = [];
  let conversationsCursor: string | null = null;
  /** Increases on every switch, so an answer for a conversation left meanwhile is dropped. */
  let generation = 0;

  const titleId = uniqueId("title");
  const sideId = uniqueId("side");
  const title = h("h2", { id: titleId }, "Chat");
  const menu = h(
    "button",
    {
      type: "button",
      className: "icon menu",
      "aria-label": "Conversations",
      "aria-expanded": "false",
      "aria-controls": sideId,
      onclick: () => toggleSide(),
    },
    "☰",
  );
  const newButton = h(
    "button",
    { type: "button", className: "icon", "aria-label": "New conversation", onclick: () => newConversation() },
    "+",
  );
  const close = options.onClose
    ? h("button", { type: "button", className: "icon", "aria-label": "Close", onclick: options.onClose }, "×")
    : null;
  const list = h("ul");
  const moreConversations = h(
    "button",
    { type: "button", className: "btn", hidden: true, onclick: () => loadConversations(true) },
    "Load more",
  );
  const side = h(
    "nav",
    { id: sideId, className: "side", "aria-label": "Conversations", hidden: true },
    h(
      "button",
      { type: "button", className: "btn primary", onclick: () => newConversation() },
      "New conversation",
    ),
    list,
    moreConversations,
  );
  const log = h("div", {
    className: "log",
    role: "log",
    "aria-live": "polite",
    "aria-label": "Messages",
    tabIndex: 0,
  });
  const starters = h("div", { className: "starters", role: "group", "aria-label": "Suggested questions" });
  const alert = h("p", { className: "alert", role: "alert" });
  const input = h("textarea", {
    rows: 1,
    placeholder: "Type a message…",
    "aria-label": "Message",
    onkeydown: (event: Event) => {
      const key = event as KeyboardEvent;
      // Enter sends; Shift+Enter is a new line; Enter that confirms an IME composition does neither.
      if (key.key !== "Enter" || key.shiftKey || key.isComposing) return;
      event.preventDefault();
      submit();
    },
    oninput: () => fitInput(),
  });
  const sendButton = h("button", { type: "submit", className: "btn primary" }, "Send");
  const composer = h(
    "form",
    {
      className: "composer",
      onsubmit: (event: Event) => {
        event.preventDefault();
        submit();
      },
    },
    input,
    sendButton,
  );
  const root = h(
    "section",
    {
      // Only the page layout has a class of its own: "panel" is the widget's floating box around the view.
      className: options.layout === "page" ? "theme chat page" : "theme chat",
      "aria-labelledby": titleId,
      onkeydown: (event: Event) => {
        if ((event as KeyboardEvent).key !== "Escape" || side.hidden || options.layout !== "panel") return;
        // Handled: the widget's panel, which closes on Escape, must not close as well.
        event.preventDefault();
        toggleSide(false);
        menu.focus();
      },
    },
    h("div", { className: "head" }, menu, title, newButton, close),
    h("div", { className: "body" }, side, h("div", { className: "main" }, log, starters, alert, composer)),
  );

  function fitInput() {
    input.style.height = "auto";
    input.style.height = `${Math.min(input.scrollHeight + 2, 160)}px`;
  }

  function showError(message: string) {
    // Once the chat is unusable here, that is the message that stays.
    if (!isDisabled) alert.textContent = message;
  }

  function setBusy(value: boolean) {
    isBusy = value;
    sendButton.setAttribute("aria-disabled", String(value || isDisabled));
  }

  function toggleSide(show = side.hidden) {
    side.hidden = !show;
    menu.setAttribute("aria-expanded", String(show));
    if (show) {
      if (!isStarted) start();
      (side.querySelector("[aria-current=true]") as HTMLElement | null)?.focus();
    }
  }

  /** Keeps the newest message in view, unless the reader scrolled up to read an older one. */
  function follow(update: () => void) {
    const isAtBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
    update();
    if (isAtBottom) log.scrollTop = log.scrollHeight;
  }

  function renderStarters() {
    const isEmpty = !conversationId && log.childElementCount === 0;
    starters.replaceChildren(
      ...(isEmpty ? starterPrompts : []).map((prompt) =>
        h("button", { type: "button", onclick: () => send(prompt) }, prompt),
      ),
    );
  }

  function renderConversations() {
    list.replaceChildren(
      ...conversations.map((conversation) =>
        h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              "aria-current": String(conversation.id === conversationId),
              title: conversation.title,
              onclick: () => {
                if (options.layout === "panel" || window.innerWidth < 760) toggleSide(false);
                void openConversation(conversation.id);
                input.focus();
              },
            },
            conversation.title || "Untitled conversation",
          ),
        ),
      ),
    );
    if (conversations.length === 0)
      list.append(h("li", {}, h("p", { className: "muted" }, "No conversations yet.")));
    moreConversations.hidden = !conversationsCursor;
  }

  async function loadConversations(isMore = false) {
    try {
      const page = await api.conversations(isMore ? (conversationsCursor ?? undefined) : undefined);
      conversations = isMore ? [...conversations, ...page.data] : page.data;
      conversationsCursor = page.has_more ? page.next_cursor : null;
      renderConversations();
    } catch (error) {
      showError(describeError(error, api.isIdentified));
    }
  }

  function setConversation(id: string | null) {
    conversationId = id;
    if (id) store.set("conversation", id);
    else store.remove("conversation");
    renderConversations();
  }

  function newConversation() {
    generation += 1;
    setConversation(null);
    log.replaceChildren();
    showError("");
    setBusy(false);
    renderStarters();
    if (options.layout === "panel" || window.innerWidth < 760) toggleSide(false);
    input.focus();
  }

  async function openConversation(id: string, cursor?: string) {
    const current = cursor ? generation : ++generation;
    if (!cursor) {
      setConversation(id);
      log.replaceChildren();
      setBusy(false);
      renderStarters();
    }
    let page: Awaited<ReturnType<ApiClient["messages"]>>;
    try {
      page = await api.messages(id, cursor);
    } catch (error) {
      if (current !== generation) return;
      // Gone, or another end user's (a different signed-in user on this browser): start afresh.
      if (error instanceof ApiError && error.status === 404 && error.code !== "app_not_found") {
        setConversation(null);
        renderStarters();
        return;
      }
      showError(describeError(error, api.isIdentified));
      return;
    }
    if (current !== generation) return;
    // The API pages newest first; the log reads oldest first.
    const elements = page.data
      .slice()
      .reverse()
      .map((message) =>
        message.role === "user" ? userMessage(message.content) : assistantMessage(message).element,
      );
    log.querySelector(".earlier")?.remove();
    const earlier =
      page.has_more && page.next_cursor
        ? h(
            "button",
            {
              type: "button",
              className: "btn earlier",
              onclick: () => void openConversation(id, page.next_cursor ?? undefined),
            },
            "Load earlier messages",
          )
        : null;
    if (cursor) log.prepend(...(earlier ? [earlier] : []), ...elements);
    else {
      log.append(...(earlier ? [earlier] : []), ...elements);
      log.scrollTop = log.scrollHeight;
    }
  }

  function userMessage(text: string): HTMLElement {
    return h("div", { className: "msg user", "data-role": "user" }, text);
  }

  function assistantMessage(message?: Pick<Message, "id" | "content" | "citations" | "feedback">) {
    const body = h("div", { className: "md" });
    const element = h("div", { className: "msg assistant", "data-role": "assistant" }, body);
    if (message) {
      body.append(renderMarkdown(message.content));
      finishAnswer(element, message.id, message.citations, message.feedback);
    }
    return { element, body };
  }

  function finishAnswer(
    element: HTMLElement,
    messageId: string | undefined,
    citations: Citation[],
    feedback: Message["feedback"],
  ) {
    if (citations.length > 0) element.append(citationList(citations));
    if (messageId) element.append(feedbackControls(api, messageId, feedback));
  }

  async function submit() {
    if (isBusy || isDisabled) return;
    const text = input.value.trim();
    if (!text) return;
    input.value = "";
    fitInput();
    await send(text);
  }

  async function send(text: string) {
    if (isBusy || isDisabled) return;
    setBusy(true);
    showError("");
    const current = generation;
    const question = userMessage(text);
    const { element, body } = assistantMessage();
    element.setAttribute("aria-busy", "true");
    body.append(h("span", { className: "status" }, "…"));
    follow(() => log.append(question, element));
    starters.replaceChildren();
    let answer = "";
    let frame = 0;
    const render = () => {
      frame = 0;
      follow(() => body.replaceChildren(renderMarkdown(answer)));
    };
    const attempt = (conversation: string | null) =>
      api.chat({ message: text, ...(conversation ? { conversation_id: conversation } : {}) }, (event) => {
        if (current !== generation) return;
        const data = event.data;
        if (event.event === "conversation" && typeof data.id === "string") {
          const isNew = !conversations.some((known) => known.id === data.id);
          if (isNew) conversations = [data as unknown as Conversation, ...conversations];
          setConversation(data.id);
        } else if (event.event === "text_delta" && typeof data.text === "string") {
          answer += data.text;
          frame ||= requestAnimationFrame(render);
        } else if (event.event === "tool_call" && !answer) {
          const status = data.name === "knowledge_search" ? "Searching the knowledge base…" : "Working…";
          body.replaceChildren(h("span", { className: "status" }, status));
        } else if (event.event === "finish") {
          cancelAnimationFrame(frame);
          render();
          finishAnswer(
            element,
            typeof data.message_id === "string" ? data.message_id : undefined,
            Array.isArray(data.citations) ? (data.citations as Citation[]) : [],
            null,
          );
        }
      });
    try {
      try {
        await attempt(conversationId);
      } catch (error) {
        // The remembered conversation belongs to no one we are (a new anonymous session): start a new one.
        const isLost =
          error instanceof ApiError &&
          error.status === 404 &&
          error.code !== "app_not_found" &&
          conversationId;
        if (!isLost || answer) throw error;
        setConversation(null);
        await attempt(null);
      }
    } catch (error) {
      if (current !== generation) return;
      showError(describeError(error, api.isIdentified));
      if (answer) {
        // Part of an answer arrived: keep it, marked as cut short.
        cancelAnimationFrame(frame);
        render();
        body.append(h("p", { className: "status" }, "(The answer was interrupted.)"));
      } else {
        // Refused before any answer: the question goes back into the composer to send again.
        question.remove();
        element.remove();
        if (!input.value) {
          input.value = text;
          fitInput();
        }
        renderStarters();
      }
    } finally {
      element.removeAttribute("aria-busy");
      if (current === generation) setBusy(false);
    }
  }

  function start() {
    if (isStarted) return;
    isStarted = true;
    void loadConversations();
    if (conversationId) void openConversation(conversationId);
  }

  renderStarters();
  return {
    root,
    input,
    start,
    applyConfig(config) {
      title.textContent = config.title || "Chat";
      applyTheme(root, config.theme);
      starterPrompts = config.starter_prompts ?? [];
      renderStarters();
    },
    disable(message) {
      isDisabled = true;
      setBusy(isBusy);
      input.disabled = true;
      starters.replaceChildren();
      alert.textContent = message;
    },
  };
}

/** Numbered source buttons; each opens the passage the answer drew on, in place (no request). */
function citationList(citations: Citation[]): HTMLElement {
  const passageId = uniqueId("passage");
  const passage = h("div", { id: passageId, className: "passage", hidden: true, tabIndex: -1 });
  let openIndex = -1;
  const buttons = citations.map((citation, index) =>
    h(
      "button",
      {
        type: "button",
        className: "cite",
        "aria-expanded": "false",
        "aria-controls": passageId,
        "aria-label": `Source ${index + 1}: ${citation.document_name}`,
        "data-testid": "citation",
        onclick: () => {
          openIndex = openIndex === index ? -1 : index;
          buttons.forEach((button, i) => {
            button.setAttribute("aria-expanded", String(i === openIndex));
          });
          passage.hidden = openIndex < 0;
          if (openIndex < 0) return;
          passage.replaceChildren(
            h("p", { className: "src" }, `${citation.document_name} · passage ${citation.position + 1}`),
            h("p", {}, citation.text),
          );
        },
      },
      `${index + 1} ${citation.document_name}`,
    ),
  );
  return h(
    "div",
    {},
    h("div", { className: "cites", role: "group", "aria-label": "Sources" }, ...buttons),
    passage,
  );
}

/** A thumb up; turned over (CSS) for down. */
const THUMB_ICON =
  "M2 21h4V9H2v12zm21-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.5-1.1L14.2 1 7.6 7.6C7.2 8 7 8.4 7 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7.1.2-.7v-2z";

/** Thumbs up / down on an answer (pressing the pressed one again takes it back), then an optional comment. */
function feedbackControls(api: ApiClient, messageId: string, initial: Message["feedback"]): HTMLElement {
  let rating: Rating | null = initial?.rating ?? null;
  const status = h("span", { role: "status" });
  const comment = h("textarea", {
    rows: 1,
    "aria-label": "Comment (optional)",
    placeholder: "Tell us more (optional)",
  });
  const form = h(
    "form",
    {
      hidden: true,
      onsubmit: (event: Event) => {
        event.preventDefault();
        void post(rating, comment.value.trim()).then((isSaved) => {
          if (!isSaved) return;
          form.hidden = true;
          status.textContent = "Thanks for your feedback.";
        });
      },
    },
    comment,
    h("button", { type: "submit", className: "btn" }, "Send feedback"),
  );
  const thumb = (value: Rating, label: string) =>
    h(
      "button",
      {
        type: "button",
        className: `icon ${value}`,
        "aria-label": label,
        "aria-pressed": String(rating === value),
        onclick: () => {
          const next = rating === value ? null : value;
          void post(next).then((isSaved) => {
            if (!isSaved) return;
            rating = next;
            like.setAttribute("aria-pressed", String(rating === "like"));
            dislike.setAttribute("aria-pressed", String(rating === "dislike"));
            form.hidden = rating === null;
            status.textContent = rating ? "" : "Feedback removed.";
          });
        },
      },
      svgIcon(THUMB_ICON),
    );
  const like = thumb("like", "Good answer");
  const dislike = thumb("dislike", "Bad answer");
  async function post(value: Rating | null, text?: string): Promise<boolean> {
    try {
      await api.feedback(messageId, value, text);
      return true;
    } catch (error) {
      status.textContent = describeError(error, api.isIdentified);
      return false;
    }
  }
  return h("div", { className: "fb" }, like, dislike, status, form);
}
