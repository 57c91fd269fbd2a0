// What the client remembers between page loads, per app: the anonymous end user's token and the
// conversation in progress. Kept in the localStorage of the page the client runs in (the host site's,
// for the widget), under keys that name the app, so two apps on one site do not mix.

/** One app's remembered values; every method survives storage being unavailable. */
export interface AppStore {
  get(key: "token" | "conversation"): string | null;
  set(key: "token" | "conversation", value: string): void;
  remove(key: "token" | "conversation"): void;
}

/**
 * The store of app `slug`. Storage can be missing or throw (blocked third-party storage, private
 * modes, a full quota): the chat then still works, it only forgets on reload.
 *
 * @example const store = appStore("support-bot"); store.set("conversation", "conv_1");
 */
export function appStore(slug: string): AppStore {
  const memory = new Map<string, string>();
  const storage = (): Storage | null => {
    try {
      return window.localStorage;
    } catch {
      return null;
    }
  };
  const name = (key: string) => `app-chat:${slug}:${key}`;
  return {
    get(key) {
      try {
        return storage()?.getItem(name(key)) ?? memory.get(key) ?? null;
      } catch {
        return memory.get(key) ?? null;
      }
    },
    set(key, value) {
      memory.set(key, value);
      try {
        storage()?.setItem(name(key), value);
      } catch {
        // Quota or policy: the in-memory copy serves this page.
      }
    },
    remove(key) {
      memory.delete(key);
      try {
        storage()?.removeItem(name(key));
      } catch {
        // As above.
      }
    },
  };
}
