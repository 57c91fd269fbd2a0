import { useSyncExternalStore } from "react";

const CHANGE = "studio:navigate";

function subscribe(onChange: () => void) {
  window.addEventListener("popstate", onChange);
  window.addEventListener(CHANGE, onChange);
  return () => {
    window.removeEventListener("popstate", onChange);
    window.removeEventListener(CHANGE, onChange);
  };
}

/** The current path; re-renders on navigation. */
export function usePath(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}

/** The current query string (`?a=b`, or ""); re-renders on navigation. */
export function useQueryString(): string {
  return useSyncExternalStore(subscribe, () => window.location.search);
}

/** Answers whether the studio may leave the current screen (false: stay, e.g. unsaved changes kept). */
export type LeaveGuard = () => boolean;

const leaveGuards = new Set<LeaveGuard>();
/** The URL the studio shows, to go back to when a guard refuses the browser's back or forward. */
let shownUrl = typeof window === "undefined" ? "" : window.location.pathname + window.location.search;

const mayLeave = () => [...leaveGuards].every((guard) => guard());

/**
 * Asks `guard` before every in-app navigation (links, `navigate`, the browser's back and forward)
 * until the answered function is called.
 *
 * @example useEffect(() => addLeaveGuard(() => confirm("Leave?")), []);
 */
export function addLeaveGuard(guard: LeaveGuard): () => void {
  leaveGuards.add(guard);
  return () => leaveGuards.delete(guard);
}

if (typeof window !== "undefined") {
  // Registered before any screen subscribes: a refused back or forward puts the URL back before
  // the screens read it, so they never change.
  window.addEventListener("popstate", () => {
    const now = window.location.pathname + window.location.search;
    if (now === shownUrl) return;
    if (mayLeave()) shownUrl = now;
    else window.history.pushState(null, "", shownUrl);
  });
}

/**
 * Moves to a path of the studio without reloading, unless a leave guard refuses; `force` skips the
 * guards (a screen moving on after it saved).
 */
export function navigate(path: string, options: { replace?: boolean; force?: boolean } = {}): void {
  const current = window.location.pathname + window.location.search;
  if (!options.force && path !== current && !mayLeave()) return;
  if (options.replace) window.history.replaceState(null, "", path);
  else window.history.pushState(null, "", path);
  shownUrl = window.location.pathname + window.location.search;
  window.dispatchEvent(new Event(CHANGE));
}

/** Matches `/agents/:id` style patterns; answers the parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const have = path.split("/").filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const part = want[i] ?? "";
    const value = have[i] ?? "";
    if (part.startsWith(":")) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return null;
  }
  return params;
}
