import { useCallback, useEffect, useRef } from "react";
import { addLeaveGuard } from "../router.ts";

/**
 * While `isDirty`, asks before the tab is closed or reloaded and before any in-app navigation (the
 * menu, links, back and forward); `confirmLeave` asks the same question on demand and answers
 * whether to go.
 * @example const confirmLeave = useUnsavedGuard(isDirty); if (confirmLeave()) resetEditor();
 */
export function useUnsavedGuard(
  isDirty: boolean,
  ask: (question: string) => boolean = confirm,
): () => boolean {
  useEffect(() => {
    if (!isDirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [isDirty]);
  const confirmLeave = useCallback(
    () => !isDirty || ask("Leave without saving your changes?"),
    [isDirty, ask],
  );
  // The router asks the latest answer, without re-registering on every render.
  const latest = useRef(confirmLeave);
  latest.current = confirmLeave;
  useEffect(() => addLeaveGuard(() => latest.current()), []);
  return confirmLeave;
}
