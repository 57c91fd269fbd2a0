import { type DragEvent, useState } from "react";

/**
 * A drop target for one file: the handlers to spread on the element, and whether a file is being
 * dragged over it (to show it takes the file).
 *
 * @example const drop = useFileDrop((file) => open(file)); <div {...drop.handlers} className={drop.isOver ? "over" : ""}>
 */
export function useFileDrop(onFile: (file: File) => void) {
  const [isOver, setOver] = useState(false);
  const carriesFiles = (event: DragEvent) => [...event.dataTransfer.types].includes("Files");
  return {
    isOver,
    handlers: {
      onDragOver: (event: DragEvent) => {
        if (!carriesFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = "copy";
        setOver(true);
      },
      onDragLeave: () => setOver(false),
      onDrop: (event: DragEvent) => {
        const file = event.dataTransfer.files[0];
        setOver(false);
        if (!file) return;
        event.preventDefault();
        onFile(file);
      },
    },
  };
}
