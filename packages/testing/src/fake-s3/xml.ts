import type { Reply } from "./http.ts";

const XMLNS = "http://s3.amazonaws.com/doc/2006-03-01/";

/** A success answer with an XML document whose root element carries S3's namespace, as the SDK expects. */
export function xmlReply(
  status: number,
  element: string,
  inner: string,
  headers: Record<string, string> = {},
): Reply & { body: string } {
  return {
    status,
    headers: { "content-type": "application/xml", ...headers },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<${element} xmlns="${XMLNS}">${inner}</${element}>`,
  };
}

/** S3's `<Error>` document; unlike success answers it has no namespace. */
export function errorXml(
  code: string,
  message: string,
  requestId: string,
  extra: Record<string, string>,
): string {
  const fields = Object.entries(extra)
    .filter(([name]) => name !== "ContentRange")
    .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
    .join("");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escapeXml(message)}</Message>${fields}<RequestId>${requestId}</RequestId><HostId>${Buffer.from(requestId).toString("base64")}</HostId></Error>`;
}

export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[c]};`,
  );
}

export function unescapeXml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|apos|#(\d+)|#x([0-9a-fA-F]+));/g,
    (_, name: string, dec?: string, hex?: string) => {
      if (dec) return String.fromCodePoint(Number(dec));
      if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
      return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[name] ?? "";
    },
  );
}
