/** The host cannot isolate code (no bwrap, no namespaces); nothing runs unconfined instead. */
export class SandboxUnavailableError extends Error {
  override name = "SandboxUnavailableError";
}

/** The language's toolchain is missing on this host. */
export class LanguageUnavailableError extends Error {
  override name = "LanguageUnavailableError";
}
