import type { Environment } from "./schema.ts";

const KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9_-]{16,}$/;

/** The mode of a secret key from its prefix, or undefined when it is not shaped like one. */
export function environmentOfKey(key: string): Environment | undefined {
  const match = KEY_PATTERN.exec(key);
  return match ? (match[1] as Environment) : undefined;
}
