import { useCallback, useRef, useState } from "react";

/**
 * Undo and redo over snapshots of the editor's state. `record` is called before a change with the
 * state as it was; `undo`/`redo` answer the state to restore.
 */
export function useHistory<T>(limit = 100) {
  const past = useRef<T[]>([]);
  const future = useRef<T[]>([]);
  // The stacks live in refs (no re-render per push); the version re-renders for canUndo/canRedo.
  const [, setVersion] = useState(0);

  const record = useCallback(
    (snapshot: T) => {
      past.current.push(snapshot);
      if (past.current.length > limit) past.current.shift();
      future.current = [];
      setVersion((v) => v + 1);
    },
    [limit],
  );

  const undo = useCallback((current: T): T | undefined => {
    const previous = past.current.pop();
    if (previous === undefined) return undefined;
    future.current.push(current);
    setVersion((v) => v + 1);
    return previous;
  }, []);

  const redo = useCallback((current: T): T | undefined => {
    const next = future.current.pop();
    if (next === undefined) return undefined;
    past.current.push(current);
    setVersion((v) => v + 1);
    return next;
  }, []);

  return { record, undo, redo, canUndo: past.current.length > 0, canRedo: future.current.length > 0 };
}
