import { type ReactNode, useEffect, useId, useRef } from "react";

/**
 * A modal dialog (the browser's own `<dialog>`: focus kept inside, Escape closes, the page behind
 * inert). Its content is only rendered while open. `placement: "side"` docks it to the right, as a
 * drawer.
 *
 * @example <Dialog title="History" isOpen={isOpen} onClose={() => setOpen(false)}>…</Dialog>
 */
export function Dialog({
  title,
  isOpen,
  onClose,
  children,
  actions,
  placement = "center",
  role = "dialog",
  testId,
}: {
  title: string;
  isOpen: boolean;
  onClose: () => void;
  children: ReactNode;
  actions?: ReactNode;
  placement?: "center" | "side";
  role?: "dialog" | "alertdialog";
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (isOpen && !dialog.open) dialog.showModal();
    if (!isOpen && dialog.open) dialog.close();
  }, [isOpen]);
  return (
    <dialog
      ref={ref}
      className={`dialog dialog-${placement}`}
      aria-labelledby={titleId}
      role={role === "alertdialog" ? "alertdialog" : undefined}
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {isOpen ? (
        <>
          <header className="dialog-header">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="dialog-close" aria-label="Close" onClick={onClose}>
              ×
            </button>
          </header>
          <div className="dialog-body">{children}</div>
          {actions ? <footer className="dialog-actions">{actions}</footer> : null}
        </>
      ) : null}
    </dialog>
  );
}
