import { type ReactNode, useEffect, useState } from "react";
import { useSession, useSignOut } from "../auth/session.ts";
import { navigate, usePath } from "../router.ts";
import { ErrorBox, Link } from "../ui/ui.tsx";

const SECTIONS = [
  { path: "/agents", label: "Agents" },
  { path: "/workflows", label: "Workflows" },
  { path: "/knowledge", label: "Knowledge" },
  { path: "/generate", label: "Generate" },
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

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem("theme", theme);
  }, [theme]);

  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">Builder studio</div>
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
