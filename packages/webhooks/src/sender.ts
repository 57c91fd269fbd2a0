import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { guardedLookup, isBlockedAddress } from "./ssrf.ts";

/** The seed fixes the acknowledgement window: 10 seconds or longer is a failure. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Only this much of a receiver's answer is kept in the attempt record. */
export const RESPONSE_BODY_LIMIT_BYTES = 4096;

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface SendResponse {
  status: number;
  /** The first 4 KiB of the answer. */
  body: string;
}

/** Delivers one POST; throws on timeout, refusal or any network error. Injected in tests and benches. */
export type Sender = (request: SendRequest) => Promise<SendResponse>;

export class DeliveryTimeoutError extends Error {
  override name = "DeliveryTimeoutError";
}

/**
 * The production sender: node:http(s) with keep-alive, a hard deadline covering connect, the
 * answer's headers and its body, no redirects, and the SSRF guard at connect time.
 *
 * @example const send = httpSender({ allowPrivate: false }); await send({ url, headers, body, timeoutMs: 10_000 });
 */
export function httpSender(options: { allowPrivate: boolean; maxSockets?: number }): Sender {
  const lookup = guardedLookup(options.allowPrivate);
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256, lookup };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  return (request) =>
    new Promise<SendResponse>((resolve, reject) => {
      const url = new URL(request.url);
      const host = url.hostname.replace(/^\[|\]$/g, "");
      // Literal addresses never reach `lookup`, so they are checked here.
      if (!options.allowPrivate && isIP(host) && isBlockedAddress(host)) {
        reject(new Error(`refused to connect to the private address ${host}`));
        return;
      }
      const isHttps = url.protocol === "https:";
      const body = Buffer.from(request.body, "utf8");
      let isSettled = false;
      const settle = (fn: () => void) => {
        if (isSettled) return;
        isSettled = true;
        clearTimeout(timer);
        fn();
      };
      const req = (isHttps ? https : http).request(url, {
        method: "POST",
        agent: isHttps ? httpsAgent : httpAgent,
        headers: { ...request.headers, "content-length": String(body.length) },
      });
      const timer = setTimeout(() => {
        const error = new DeliveryTimeoutError(`no answer within ${request.timeoutMs} ms`);
        settle(() => reject(error));
        req.destroy(error);
      }, request.timeoutMs);
      req.on("error", (error) => settle(() => reject(error)));
      req.on("response", (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on("data", (chunk: Buffer) => {
          if (kept >= RESPONSE_BODY_LIMIT_BYTES) return;
          const slice = chunk.subarray(0, RESPONSE_BODY_LIMIT_BYTES - kept);
          chunks.push(slice);
          kept += slice.length;
        });
        res.on("error", (error) => settle(() => reject(error)));
        res.on("end", () =>
          settle(() =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
          ),
        );
      });
      req.end(body);
    });
}
