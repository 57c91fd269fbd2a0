import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const VERSION = "v1";
const IV_BYTES = 12;

/**
 * The 256-bit key credentials are encrypted under, derived from the service's master secret.
 * Deriving (rather than using `SECRET_KEY` as is) keeps session signing and credential
 * encryption on separate keys even though one variable configures both.
 *
 * @example const key = credentialKey(config.secretKey);
 */
export function credentialKey(masterSecret: string): Buffer {
  // Derivation costs more than the decryption it serves (every chat turn opens a key), and a
  // process has one master secret: derive once.
  let key = derivedKeys.get(masterSecret);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", masterSecret, "builder", "credentials/aes-256-gcm/v1", 32));
    derivedKeys.set(masterSecret, key);
  }
  return key;
}

const derivedKeys = new Map<string, Buffer>();

/**
 * AES-256-GCM with a fresh 96-bit IV. `context` (the row's id and workspace) is authenticated
 * but not stored, so a ciphertext copied into another row does not decrypt.
 *
 * @example const stored = encryptSecret(key, "sk-…", `${workspaceId}/${id}`);
 */
export function encryptSecret(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv, tag, ciphertext]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

/**
 * Reverses `encryptSecret`; throws when the key, the context or the bytes are not the ones it was sealed with.
 *
 * @example const apiKey = decryptSecret(key, row.encryptedKey, `${row.workspaceId}/${row.id}`);
 */
export function decryptSecret(key: Buffer, sealed: string, context: string): string {
  const [version, iv, tag, ciphertext] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || ciphertext === undefined)
    throw new Error("unknown credential format");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString(
    "utf8",
  );
}

/**
 * What people see of a key: its first characters when they only name the kind of key
 * (`sk-`, `sk-ant-`, Replicate's `r8_`), and the last four.
 *
 * @example keyHint("sk-proj-abcdefghijklmnop1234") // "sk-…1234"
 */
export function keyHint(apiKey: string): string {
  if (apiKey.length < 12) return "…";
  const kind = /^(?:[a-z]{1,4}-|r8_)/i.exec(apiKey)?.[0] ?? "";
  return `${kind}…${apiKey.slice(-4)}`;
}

/** The associated data a credential's ciphertext is bound to. */
export function credentialContext(row: { workspaceId: string; id: string }): string {
  return `${row.workspaceId}/${row.id}`;
}
