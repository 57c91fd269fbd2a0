import { PRODUCT_NAME } from "../product.ts";
import type { MailMessage } from "./mailer.ts";

/**
 * The e-mails the builder sends: each a subject, a plain-text body and a simple HTML body with the
 * product's name and one link. The plain text carries the link whole, so it works in any client.
 */

export function verifyEmailMessage(to: string, link: string): MailMessage {
  return message(to, `Confirm your e-mail address for ${PRODUCT_NAME}`, link, {
    lines: [`Confirm that ${to} is your address for ${PRODUCT_NAME}.`],
    action: "Confirm my address",
    footer: "If you did not sign up, ignore this e-mail.",
  });
}

export function resetPasswordMessage(to: string, link: string, expiresInMinutes: number): MailMessage {
  return message(to, `Reset your ${PRODUCT_NAME} password`, link, {
    lines: [
      `Someone asked to reset the password of ${to} on ${PRODUCT_NAME}.`,
      `The link works once, within ${expiresInMinutes} minutes. Setting a new password signs you out everywhere.`,
    ],
    action: "Choose a new password",
    footer: "If it was not you, ignore this e-mail: your password stays as it is.",
  });
}

export function changeEmailMessage(to: string, newEmail: string, link: string): MailMessage {
  return message(to, `Confirm the change of your ${PRODUCT_NAME} e-mail address`, link, {
    lines: [
      `Someone asked to change the e-mail address of your ${PRODUCT_NAME} account from ${to} to ${newEmail}.`,
      `Confirm it here; then ${newEmail} receives a last link to finish the change.`,
    ],
    action: "Confirm the change",
    footer: "If it was not you, ignore this e-mail and change your password.",
  });
}

export function invitationMessage(
  to: string,
  invitation: { workspaceName: string; inviterName: string; role: string; expiresInDays: number },
  link: string,
): MailMessage {
  return message(
    to,
    `${invitation.inviterName} invited you to ${invitation.workspaceName} on ${PRODUCT_NAME}`,
    link,
    {
      lines: [
        `${invitation.inviterName} invited you to join the workspace "${invitation.workspaceName}" on ${PRODUCT_NAME} as ${article(invitation.role)} ${invitation.role}.`,
        `Open the link to accept: sign in, or create an account with ${to}. It expires in ${invitation.expiresInDays} days.`,
      ],
      action: "Open the invitation",
      footer: "If you do not know this person, ignore this e-mail.",
    },
  );
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? "an" : "a";
}

function message(
  to: string,
  subject: string,
  link: string,
  body: { lines: string[]; action: string; footer: string },
): MailMessage {
  const text = [...body.lines, "", `${body.action}: ${link}`, "", body.footer, "", `— ${PRODUCT_NAME}`].join(
    "\n",
  );
  const html = `<!doctype html>
<html><body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #1f2328; max-width: 36rem">
<p style="font-weight: 600">${escapeHtml(PRODUCT_NAME)}</p>
${body.lines.map((line) => `<p>${escapeHtml(line)}</p>`).join("\n")}
<p><a href="${escapeHtml(link)}" style="display: inline-block; padding: 0.5rem 1rem; background: #1f6feb; color: #fff; text-decoration: none; border-radius: 6px">${escapeHtml(body.action)}</a></p>
<p style="font-size: 0.85rem; color: #59636e">Or paste this address into your browser: ${escapeHtml(link)}</p>
<p style="font-size: 0.85rem; color: #59636e">${escapeHtml(body.footer)}</p>
</body></html>`;
  return { to, subject, text, html, links: [link] };
}

function escapeHtml(value: string): string {
  return value
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}
