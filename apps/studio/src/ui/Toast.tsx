import { useEffect } from "react";
import { Button } from "./ui.tsx";

/** A message shown at the bottom of the screen, with an action (Undo) until it is dismissed. */
export interface ToastMessage {
  text: string;
  action?: { label: string; onClick: () => void; isBusy?: boolean };
}

/**
 * The screen's toast: announced politely, dismissed by its × or after `timeoutMs`.
 *
 * @example <Toast message={toast} onDismiss={() => setToast(null)} />
 */
export function Toast({
  message,
  onDismiss,
  timeoutMs = 20_000,
}: {
  message: ToastMessage | null;
  onDismiss: () => void;
  timeoutMs?: number;
}) {
  useEffect(() => {
    if (!message || message.action?.isBusy) return;
    const timer = setTimeout(onDismiss, timeoutMs);
    return () => clearTimeout(timer);
  }, [message, onDismiss, timeoutMs]);
  return (
    <div className="toast-region" role="status" aria-live="polite">
      {message ? (
        <div className="toast" data-testid="toast">
          <span>{message.text}</span>
          {message.action ? (
            <Button
              variant="secondary"
              onClick={message.action.onClick}
              isBusy={message.action.isBusy ?? false}
            >
              {message.action.label}
            </Button>
          ) : null}
          <button type="button" className="toast-close" aria-label="Dismiss" onClick={onDismiss}>
            ×
          </button>
        </div>
      ) : null}
    </div>
  );
}
