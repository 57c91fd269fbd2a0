/**
 * The one byte range of a `Range: bytes=…` header against an object of `size` bytes: `full` when
 * there is no usable header (multiple ranges and other units are answered whole, as RFC 9110
 * allows), `unsatisfiable` when it starts past the end.
 *
 * @example parseByteRange("bytes=0-99", 1000) // { kind: "range", start: 0, end: 99 }
 */
export function parseByteRange(
  header: string | undefined,
  size: number,
): { kind: "full" } | { kind: "unsatisfiable" } | { kind: "range"; start: number; end: number } {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? "");
  if (!match) return { kind: "full" };
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return { kind: "full" };
  if (first === "") {
    // A suffix range: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "range", start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) return { kind: "unsatisfiable" };
  return { kind: "range", start, end };
}
