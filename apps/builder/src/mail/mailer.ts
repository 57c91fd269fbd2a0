import type { Logger } from "@app/http";
import { createTransport, type Transporter } from "nodemailer";

/** One e-mail, as the templates render it; `links` are what the log shows when nothing is sent. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  links: string[];
}

/**
 * Sends e-mail without holding up the request that asked for it: `send` queues the message and
 * returns; a failed attempt is retried after each of `retryDelaysMs`, and a message that fails
 * every attempt is logged as an error (the person can ask again: a new link, a new invitation).
 */
export interface Mailer {
  /** Whether messages really go out (SMTP_URL is set) or are only logged. */
  readonly isSending: boolean;
  send(message: MailMessage): void;
  /** Resolves when every queued message was sent or given up on (tests, shutdown). */
  idle(): Promise<void>;
  /** Waits for the queue up to `graceMs`, then logs what is left unsent as errors and closes SMTP connections. */
  close(graceMs?: number): Promise<void>;
}

export interface MailerOptions {
  /** `smtp://user:pass@host:587` or `smtps://…`; unset, messages are written to the log with their links. */
  smtpUrl: string | undefined;
  /** The From header, e.g. `Builder <no-reply@example.com>`. */
  from: string;
  logger: Logger;
  /** Waits before the 2nd, 3rd, … attempt; the message is given up after the last. */
  retryDelaysMs?: readonly number[];
  /** Seconds an SMTP connection, greeting or command may take before the attempt fails. */
  timeoutMs?: number;
}

/** nodemailer's SMTP settings from `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
function smtpSettings(smtpUrl: string, timeoutMs: number) {
  const url = new URL(smtpUrl);
  const isSecure = url.protocol === "smtps:";
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : isSecure ? 465 : 587,
    secure: isSecure,
    ...(url.username
      ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } }
      : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  };
}

/** A minute and a half of retries covers a mail server's restart; longer belongs to a durable queue. */
const DEFAULT_RETRY_DELAYS_MS = [2_000, 10_000, 60_000] as const;
const DEFAULT_TIMEOUT_MS = 15_000;

/**
 * The mailer of `options`: SMTP through nodemailer when `smtpUrl` is set, the log otherwise.
 *
 * @example const mailer = createMailer({ smtpUrl: config.mail.smtpUrl, from: config.mail.from, logger });
 */
export function createMailer(options: MailerOptions): Mailer {
  const { logger } = options;
  const delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const transport: Transporter | undefined = options.smtpUrl
    ? createTransport(smtpSettings(options.smtpUrl, timeoutMs))
    : undefined;
  const pending = new Set<Promise<void>>();
  const timers = new Set<{ timer: NodeJS.Timeout; message: MailMessage; wake: () => void }>();
  let isClosed = false;

  const describe = (message: MailMessage) => ({ to: message.to, subject: message.subject });

  async function deliver(message: MailMessage): Promise<void> {
    if (!transport) {
      logger.info(
        { mail: { ...describe(message), links: message.links } },
        "e-mail not sent (SMTP_URL is unset): the links are here",
      );
      return;
    }
    for (let attempt = 0; ; attempt++) {
      try {
        await transport.sendMail({
          from: options.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
        });
        logger.info({ mail: describe(message), attempt: attempt + 1 }, "e-mail sent");
        return;
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const delay = delays[attempt];
        if (delay === undefined || isClosed) {
          logger.error(
            { mail: describe(message), attempts: attempt + 1, err: reason },
            "e-mail could not be sent; the person can ask for it again. Check SMTP_URL and the mail server's log",
          );
          return;
        }
        logger.warn(
          { mail: describe(message), attempt: attempt + 1, retry_in_ms: delay, err: reason },
          "e-mail not sent yet; retrying",
        );
        await new Promise<void>((resolve) => {
          const entry = {
            timer: setTimeout(() => {
              timers.delete(entry);
              resolve();
            }, delay),
            message,
            wake: resolve,
          };
          entry.timer.unref();
          timers.add(entry);
        });
      }
    }
  }

  return {
    isSending: transport !== undefined,
    send(message) {
      if (isClosed) {
        logger.error({ mail: describe(message) }, "e-mail not sent: the service is stopping");
        return;
      }
      const sending = deliver(message).catch((error: unknown) => {
        logger.error({ mail: describe(message), err: String(error) }, "e-mail could not be sent");
      });
      pending.add(sending);
      void sending.finally(() => pending.delete(sending));
    },
    async idle() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    async close(graceMs = 5_000) {
      const drained = this.idle();
      let timeout: NodeJS.Timeout | undefined;
      await Promise.race([drained, new Promise<void>((resolve) => (timeout = setTimeout(resolve, graceMs)))]);
      clearTimeout(timeout);
      isClosed = true;
      // Messages waiting for a retry get one last attempt now, which gives up on failure.
      for (const entry of timers) {
        clearTimeout(entry.timer);
        entry.wake();
      }
      timers.clear();
      await Promise.race([this.idle(), new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref())]);
      transport?.close();
    },
  };
}
