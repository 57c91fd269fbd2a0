import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** One message the test SMTP server accepted, parsed. */
export interface ReceivedMail {
  /** The envelope's recipients (RCPT TO), lower-cased. */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  /** Every http(s) URL in the plain-text body, in order. */
  links: string[];
}

export interface TestSmtpServer {
  /** `smtp://127.0.0.1:<port>` with a test login: what SMTP_URL takes. */
  url: string;
  /** Every accepted message, oldest first. */
  readonly messages: ReceivedMail[];
  /** The first message (already received or still to come) to `to` that `matches`; rejects after `timeoutMs`. */
  waitFor(to: string, matches?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Refuses the next `count` messages with a temporary failure (451), as a mail server under load does. */
  failNext(count: number): void;
  close(): Promise<void>;
}

const USER = "mailer";
const PASSWORD = "mail-test-password";

/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package, with AUTH PLAIN/LOGIN and no TLS) that
 * keeps what it receives, for tests of code that sends e-mail through a real SMTP client.
 *
 * @example const smtp = await startTestSmtpServer(); const mail = await smtp.waitFor("ada@example.com");
 */
export async function startTestSmtpServer(): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const waiters = new Set<{
    accepts: (mail: ReceivedMail) => boolean;
    resolve: (mail: ReceivedMail) => void;
  }>();
  let failures = 0;
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ["STARTTLS"],
    authOptional: false,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) return callback(null, { user: USER });
      return callback(new Error("Invalid username or password"));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (failures > 0) {
          failures -= 1;
          const error = new Error("Temporary failure, try again later") as Error & { responseCode: number };
          error.responseCode = 451;
          return callback(error);
        }
        simpleParser(Buffer.concat(chunks))
          .then((parsed) => {
            const text = parsed.text ?? "";
            const mail: ReceivedMail = {
              to: session.envelope.rcptTo.map((recipient) => recipient.address.toLowerCase()),
              from: typeof session.envelope.mailFrom === "object" ? session.envelope.mailFrom.address : "",
              subject: parsed.subject ?? "",
              text,
              html: typeof parsed.html === "string" ? parsed.html : "",
              links: [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((match) => match[0]),
            };
            messages.push(mail);
            for (const waiter of waiters) {
              if (waiter.accepts(mail)) {
                waiters.delete(waiter);
                waiter.resolve(mail);
              }
            }
            callback();
          })
          .catch((error: Error) => callback(error));
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : 0;

  return {
    url: `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}`,
    messages,
    waitFor(to, matches = () => true, timeoutMs = 10_000) {
      const accepts = (mail: ReceivedMail) => mail.to.includes(to.toLowerCase()) && matches(mail);
      const received = messages.find(accepts);
      if (received) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const waiter = {
          accepts,
          resolve: (mail: ReceivedMail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no e-mail to ${to} within ${timeoutMs} ms (received: ${describe(messages)})`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    failNext(count) {
      failures = count;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function describe(messages: ReceivedMail[]): string {
  return messages.map((mail) => `${mail.to.join(",")}: ${mail.subject}`).join("; ") || "none";
}
