// An app's end-user secret comes back once, in the answer that created the app, while the studio is
// moving to the app's page. It waits here, in memory only, for that page to show it.
const waiting = new Map<string, string>();

/**
 * Leaves a just-created app's secret for its page to show.
 *
 * @example handOffSecret(created.id, created.end_user_secret); navigate(`/apps/${created.id}`);
 */
export function handOffSecret(appId: string, secret: string): void {
  waiting.set(appId, secret);
}

/**
 * The secret left for this app, once: a second call answers null, so it is never shown twice.
 *
 * @example const [secret] = useState(() => takeSecret(appId));
 */
export function takeSecret(appId: string): string | null {
  const secret = waiting.get(appId) ?? null;
  waiting.delete(appId);
  return secret;
}
