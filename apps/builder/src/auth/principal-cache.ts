import type { Clock } from "@app/core";
import type { Identity } from "../env.ts";

/**
 * Remembers who a credential (session cookie or API key hash) stands for, for a few seconds.
 * Authentication would otherwise cost two to three queries on every request, and the embedded
 * database serves queries one at a time. Sign-out and key revocation evict their entry at once
 * in this process; other processes notice within `ttlMs`.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, { identity: Identity; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
  ) {}

  get(credential: string): Identity | undefined {
    const entry = this.entries.get(credential);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now().getTime()) {
      this.entries.delete(credential);
      return undefined;
    }
    return entry.identity;
  }

  set(credential: string, identity: Identity): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(credential, { identity, expiresAt: this.clock.now().getTime() + this.ttlMs });
  }

  delete(credential: string): void {
    this.entries.delete(credential);
  }

  /** Forgets the session's entry, whichever cookie value it was cached under (revocations know only the session). */
  deleteSession(sessionId: string): void {
    for (const [credential, entry] of this.entries) {
      if (entry.identity.sessionId === sessionId) this.entries.delete(credential);
    }
  }
}

export const SESSION_COOKIE = "better-auth.session_token";

export const sessionCredential = (cookieValue: string) => `session:${cookieValue}`;
export const apiKeyCredential = (keyHash: string) => `key:${keyHash}`;
