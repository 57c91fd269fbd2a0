/** Rows a page of an export reads: enough to keep round trips rare, few enough to keep memory flat. */
export const EXPORT_PAGE_SIZE = 1000;

const encoder = new TextEncoder();

/**
 * An export as a byte stream read from the database a page at a time, as the client reads it:
 * the next page is fetched only when the previous one has been taken (the stream's `pull`), so the
 * whole result is never in memory whatever its size, and a client that goes away stops the reads.
 * A page may hold no row (a filter that matched nothing in the range it read); reading goes on
 * from its `after` until a page says there is nothing after it.
 *
 * @example return c.body(pagedExport({ head: CSV_BOM, page: (after) => read(after), text: toCsv }), 200);
 */
export function pagedExport<Row>(options: {
  /** Written before the first page (a byte order mark, a header record). */
  head: string;
  /** The rows after the cursor `after` (undefined: from the start), and the next page's cursor (undefined: the end). */
  page: (after: string | undefined) => Promise<{ rows: Row[]; after: string | undefined }>;
  /** The text of one page's rows. */
  text: (rows: Row[]) => string;
}): ReadableStream<Uint8Array> {
  let after: string | undefined;
  let isStarted = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!isStarted) {
          isStarted = true;
          if (options.head) controller.enqueue(encoder.encode(options.head));
        }
        for (;;) {
          const page = await options.page(after);
          after = page.after;
          if (page.rows.length > 0) controller.enqueue(encoder.encode(options.text(page.rows)));
          if (after === undefined) {
            controller.close();
            return;
          }
          if (page.rows.length > 0) return;
        }
      },
    },
    // One page waits at most: the next is read only once the client has taken it.
    { highWaterMark: 1 },
  );
}
