import { createLogger } from "@app/http";
import { startTestSmtpServer, type TestSmtpServer } from "@app/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMailer } from "./mailer.ts";
import { invitationMessage, resetPasswordMessage, verifyEmailMessage } from "./templates.ts";

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startTestSmtpServer();
});
afterAll(() => smtp?.close());

function capturingLogger() {
  const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
  const logger = createLogger({
    service: "mail-test",
    level: "info",
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}

describe("the mailer", () => {
  it("sends plain text and HTML with the product's name and the link through SMTP", async () => {
    const { logger } = capturingLogger();
    const mailer = createMailer({ smtpUrl: smtp.url, from: "Builder <no-reply@example.com>", logger });
    const link = "http://127.0.0.1:3000/api/auth/verify-email?token=abc&callbackURL=%2F";
    mailer.send(verifyEmailMessage("ada@example.com", link));
    const mail = await smtp.waitFor("ada@example.com");
    expect(mail.subject).toBe("Confirm your e-mail address for Builder");
    expect(mail.from).toBe("no-reply@example.com");
    expect(mail.links).toEqual([link]);
    expect(mail.text).toContain("Builder");
    expect(mail.html).toContain(`href="${link.replaceAll("&", "&amp;")}"`);
    await mailer.close();
  });

  it("answers at once and sends in the background", async () => {
    const { logger } = capturingLogger();
    const mailer = createMailer({ smtpUrl: smtp.url, from: "no-reply@example.com", logger });
    const started = performance.now();
    mailer.send(resetPasswordMessage("fast@example.com", "http://x.test/reset/1", 60));
    expect(performance.now() - started).toBeLessThan(50);
    expect(smtp.messages.some((mail) => mail.to.includes("fast@example.com"))).toBe(false);
    await mailer.idle();
    expect(smtp.messages.some((mail) => mail.to.includes("fast@example.com"))).toBe(true);
    await mailer.close();
  });

  it("retries a temporary failure and then delivers", async () => {
    const { logger, lines } = capturingLogger();
    const mailer = createMailer({
      smtpUrl: smtp.url,
      from: "no-reply@example.com",
      logger,
      retryDelaysMs: [5, 5],
    });
    smtp.failNext(2);
    mailer.send(verifyEmailMessage("retry@example.com", "http://x.test/verify"));
    await mailer.idle();
    expect((await smtp.waitFor("retry@example.com")).links).toEqual(["http://x.test/verify"]);
    expect(lines.filter((line) => line.msg === "e-mail not sent yet; retrying")).toHaveLength(2);
    await mailer.close();
  });

  it("logs an error naming the recipient once every attempt has failed", async () => {
    const { logger, lines } = capturingLogger();
    const mailer = createMailer({
      smtpUrl: smtp.url,
      from: "no-reply@example.com",
      logger,
      retryDelaysMs: [5],
    });
    smtp.failNext(2);
    mailer.send(verifyEmailMessage("lost@example.com", "http://x.test/verify"));
    await mailer.idle();
    const failure = lines.find((line) => line.level === 50);
    expect(failure).toMatchObject({ mail: { to: "lost@example.com" }, attempts: 2 });
    expect(failure?.msg).toContain("could not be sent");
    expect(smtp.messages.some((mail) => mail.to.includes("lost@example.com"))).toBe(false);
    await mailer.close();
  });

  it("without SMTP_URL writes the message's links to the log instead", async () => {
    const { logger, lines } = capturingLogger();
    const mailer = createMailer({ smtpUrl: undefined, from: "no-reply@example.com", logger });
    expect(mailer.isSending).toBe(false);
    const message = invitationMessage(
      "bob@example.com",
      { workspaceName: "Acme", inviterName: "Ada", role: "editor", expiresInDays: 7 },
      "http://localhost:3000/invitations/inv_1",
    );
    mailer.send(message);
    await mailer.idle();
    expect(lines).toContainEqual(
      expect.objectContaining({
        mail: {
          to: "bob@example.com",
          subject: "Ada invited you to Acme on Builder",
          links: ["http://localhost:3000/invitations/inv_1"],
        },
      }),
    );
    expect(message.text).toContain("as an editor");
  });
});
