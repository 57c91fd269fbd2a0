import { useCallback, useEffect } from "react";

/**
 * While `isDirty`, asks before the tab is closed or reloaded; `confirmLeave` asks before an
 * in-app navigation and answers whether to go.
 * @example const confirmLeave = useUnsavedGuard(isDirty); if (confirmLeave()) navigate("/workflows");
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
  return useCallback(() => !isDirty || ask("Leave without saving your changes?"), [isDirty, ask]);
}
