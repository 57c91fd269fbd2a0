/**
 * An S3 error answer: status, code and message as S3 words them. `extra` becomes more elements of
 * the XML `<Error>` (S3 names the offending key, region, …); `ContentRange` is sent as a header instead.
 */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, string> = {},
  ) {
    super(message);
  }
}
