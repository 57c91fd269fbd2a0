import { useCallback, useState } from "react";

export type Panels = { palette: boolean; side: boolean };

const KEY = "editor-panels";

/**
 * Which of the editor's side panels are open, remembered across visits; both open at first and
 * when what was stored cannot be read.
 * @example const [panels, setPanels] = useStoredPanels(); setPanels({ ...panels, side: false });
 */
export function useStoredPanels(): [Panels, (next: Panels) => void] {
  const [panels, setPanels] = useState<Panels>(() => {
    try {
      const stored = JSON.parse(localStorage.getItem(KEY) ?? "null") as Partial<Panels> | null;
      return { palette: stored?.palette ?? true, side: stored?.side ?? true };
    } catch {
      return { palette: true, side: true };
    }
  });
  const store = useCallback((next: Panels) => {
    setPanels(next);
    localStorage.setItem(KEY, JSON.stringify(next));
  }, []);
  return [panels, store];
}
