import { useCallback, useRef, useState } from "react";

/**
 * Undo and redo over snapshots of the editor's state. `record` is called before a change with the
 * state as it was; `undo`/`redo` answer the state to restore.
 */
export function useHistory<T>(limit = 100) {
  const past = useRef<T[]>([]);
  const future = useRef<T[]>([]);
  const [, setVersion] = useState(0);
  const bump = () => setVersion((v) => v + 1);

  const record = useCallback(
    (snapshot: T) => {
      past.current.push(snapshot);
      if (past.current.length > limit) past.current.shift();
      future.current = [];
      bump();
    },
    [limit],
  );

  const undo = useCallback((current: T): T | undefined => {
    const previous = past.current.pop();
    if (previous === undefined) return undefined;
    future.current.push(current);
    bump();
    return previous;
  }, []);

  const redo = useCallback((current: T): T | undefined => {
    const next = future.current.pop();
    if (next === undefined) return undefined;
    past.current.push(current);
    bump();
    return next;
  }, []);

  return { record, undo, redo, canUndo: past.current.length > 0, canRedo: future.current.length > 0 };
}
