import { useQuery } from "@tanstack/react-query";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { api, type Page } from "../api/client.ts";
import { searchPath } from "../api/paged.ts";
import { navigate } from "../router.ts";

/** Somewhere the palette can take the user: a screen, or one named thing on its page. */
interface Destination {
  label: string;
  kind: string;
  path: string;
}

/** Named things found per kind: enough to pick from, few enough to read at a glance. */
const MATCHES_PER_KIND = 5;
const SEARCH_PAUSE_MS = 150;

const FOUND: { kind: string; list: string; page: (id: string) => string }[] = [
  { kind: "Agent", list: "/api/agents", page: (id) => `/agents/${id}` },
  { kind: "Workflow", list: "/api/workflows", page: (id) => `/workflows/${id}` },
  { kind: "Knowledge base", list: "/api/knowledge-bases", page: (id) => `/knowledge/${id}` },
  { kind: "App", list: "/api/apps", page: (id) => `/apps/${id}` },
];

async function findNamed(q: string, signal: AbortSignal): Promise<Destination[]> {
  const pages = await Promise.all(
    FOUND.map((found) =>
      api<Page<{ id: string; name: string }>>(searchPath(`${found.list}?limit=${MATCHES_PER_KIND}`, q), {
        signal,
      }).then((page) =>
        page.data.map((row) => ({ label: row.name, kind: found.kind, path: found.page(row.id) })),
      ),
    ),
  );
  return pages.flat();
}

/**
 * Ctrl/Cmd-K (or the menu's "Jump to…"): type to jump to any screen, agent, workflow, knowledge base
 * or app. A combobox over a listbox, driven by the keyboard (arrows, Enter, Escape); named things
 * come from the lists' own `?q=` search, so every one is reachable, not just those loaded.
 */
export function CommandPalette({ screens }: { screens: readonly { path: string; label: string }[] }) {
  const [isOpen, setOpen] = useState(false);
  const opener = useRef<Element | null>(null);

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
        event.preventDefault();
        opener.current = document.activeElement;
        setOpen(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const close = () => {
    setOpen(false);
    // Back where the user was, as a dialog should leave focus.
    if (opener.current instanceof HTMLElement) opener.current.focus();
  };

  return (
    <>
      <button
        type="button"
        className="btn btn-secondary jump-opener"
        aria-keyshortcuts="Control+K Meta+K"
        onClick={(event) => {
          opener.current = event.currentTarget;
          setOpen(true);
        }}
      >
        Jump to… <kbd>Ctrl K</kbd>
      </button>
      {isOpen ? <Palette screens={screens} onClose={close} /> : null}
    </>
  );
}

function Palette({
  screens,
  onClose,
}: {
  screens: readonly { path: string; label: string }[];
  onClose: () => void;
}) {
  const [text, setText] = useState("");
  const [q, setQ] = useState("");
  const [active, setActive] = useState(0);
  const listId = useId();
  useEffect(() => {
    const timer = setTimeout(() => setQ(text.trim()), SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  const found = useQuery({
    queryKey: ["palette", q],
    queryFn: ({ signal }) => findNamed(q, signal),
    enabled: q.length > 0,
    placeholderData: (previous) => previous,
  });
  const needle = text.trim().toLowerCase();
  const destinations: Destination[] = [
    ...screens
      .filter((screen) => screen.label.toLowerCase().includes(needle))
      .map((screen) => ({ label: screen.label, kind: "Screen", path: screen.path })),
    ...(q ? (found.data ?? []) : []),
  ];
  const current = Math.min(active, Math.max(0, destinations.length - 1));

  const go = (destination: Destination | undefined) => {
    if (!destination) return;
    onClose();
    navigate(destination.path);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((current + step + destinations.length) % Math.max(1, destinations.length));
    } else if (event.key === "Enter") {
      event.preventDefault();
      go(destinations[current]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      onClose();
    }
  };

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: the backdrop closes on a click outside; the keyboard closes with Escape in the input
    // biome-ignore lint/a11y/useKeyWithClickEvents: as above
    <div className="jump-backdrop" onClick={onClose}>
      <div
        className="jump-dialog card"
        role="dialog"
        aria-modal="true"
        aria-label="Jump to"
        onClick={(event) => event.stopPropagation()}
        onKeyDown={(event) => event.stopPropagation()}
      >
        <input
          // biome-ignore lint/a11y/noAutofocus: the palette exists to be typed into at once
          autoFocus
          role="combobox"
          aria-expanded="true"
          aria-controls={listId}
          aria-activedescendant={destinations.length > 0 ? `${listId}-${current}` : undefined}
          aria-label="Jump to a screen, agent, workflow, knowledge base or app"
          placeholder="Jump to…"
          maxLength={200}
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            setActive(0);
          }}
          onKeyDown={onKeyDown}
        />
        <div id={listId} role="listbox" aria-label="Destinations" className="jump-list">
          {destinations.map((destination, index) => (
            // biome-ignore lint/a11y/useKeyWithClickEvents: options are chosen with the input's arrows and Enter
            <div
              key={`${destination.kind}:${destination.path}`}
              id={`${listId}-${index}`}
              role="option"
              // Focus stays in the input (aria-activedescendant); -1 keeps options out of the tab order.
              tabIndex={-1}
              aria-selected={index === current}
              className={index === current ? "jump-option active" : "jump-option"}
              onMouseEnter={() => setActive(index)}
              onClick={() => go(destination)}
            >
              <span>{destination.label}</span>
              <span className="muted">{destination.kind}</span>
            </div>
          ))}
        </div>
        {destinations.length === 0 && (q === "" || !found.isFetching) ? (
          <p className="muted jump-empty" role="status">
            Nothing matches “{text.trim()}”
          </p>
        ) : null}
      </div>
    </div>
  );
}
