import { type ReactNode, useEffect, useState } from "react";
import { useSession, useSignOut } from "../auth/session.ts";
import { match, navigate, usePath } from "../router.ts";
import { ErrorBox, Link } from "../ui/ui.tsx";
import { CommandPalette } from "./CommandPalette.tsx";

const SECTIONS = [
  { path: "/agents", label: "Agents" },
  { path: "/workflows", label: "Workflows" },
  { path: "/approvals", label: "Approvals" },
  { path: "/apps", label: "Apps" },
  { path: "/logs", label: "Logs" },
  { path: "/knowledge", label: "Knowledge" },
  { path: "/generate", label: "Generate" },
  { path: "/usage", label: "Usage" },
  { path: "/billing", label: "Billing" },
  { path: "/settings", label: "Settings" },
];

type Theme = "light" | "dark";

function initialTheme(): Theme {
  const stored = localStorage.getItem("theme");
  if (stored === "light" || stored === "dark") return stored;
  return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function Shell({ children }: { children: ReactNode }) {
  const path = usePath();
  const session = useSession();
  const signOut = useSignOut();
  const [theme, setTheme] = useState<Theme>(initialTheme);
  // The workflow editor starts with the menu folded so the canvas gets the width; elsewhere it is
  // open. Each remembers the user's choice.
  const menuKey = match("/workflows/:id", path) ? "menu-editor" : "menu";
  const [menuChoice, setMenuChoice] = useState<Record<string, string | null>>(() => ({
    menu: localStorage.getItem("menu"),
    "menu-editor": localStorage.getItem("menu-editor"),
  }));
  const isMenuOpen = (menuChoice[menuKey] ?? (menuKey === "menu" ? "open" : "closed")) === "open";
  const setMenuOpen = (isOpen: boolean) => {
    localStorage.setItem(menuKey, isOpen ? "open" : "closed");
    setMenuChoice({ ...menuChoice, [menuKey]: isOpen ? "open" : "closed" });
  };

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem("theme", theme);
  }, [theme]);

  return (
    <div className={`shell${isMenuOpen ? "" : " menu-closed"}`}>
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <span className="brand-name">Builder studio</span>
          <button
            type="button"
            className="menu-toggle"
            aria-expanded={isMenuOpen}
            aria-label={isMenuOpen ? "Collapse the menu" : "Expand the menu"}
            title={isMenuOpen ? "Collapse the menu" : "Expand the menu"}
            onClick={() => setMenuOpen(!isMenuOpen)}
          >
            {isMenuOpen ? "«" : "»"}
          </button>
        </div>
        <CommandPalette screens={SECTIONS} />
        {SECTIONS.map((section) => (
          <Link
            key={section.path}
            to={section.path}
            aria-current={path.startsWith(section.path) ? "page" : undefined}
          >
            {section.label}
          </Link>
        ))}
        <div className="spacer" />
        <span className="muted">{session.data?.user.email}</span>
        <button
          type="button"
          className="btn btn-secondary"
          onClick={() => setTheme(theme === "dark" ? "light" : "dark")}
        >
          {theme === "dark" ? "Light theme" : "Dark theme"}
        </button>
        <button
          type="button"
          className="btn btn-secondary"
          onClick={() =>
            signOut.mutate(undefined, { onSuccess: () => navigate("/sign-in", { replace: true }) })
          }
        >
          Sign out
        </button>
        <ErrorBox error={signOut.error} />
      </nav>
      <main>{children}</main>
    </div>
  );
}
