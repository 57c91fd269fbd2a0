import type { NodeLogs } from "@app/workflow";

/**
 * Characters of stdout and of stderr kept with a node's run record. The sandbox's own output limit is
 * larger (its job is to stop runaway programs); a run record is read in the studio and sent in every
 * GET of the run, where a few screens of text are what a person reads.
 */
export const NODE_LOG_LIMIT = 16_384;

/**
 * A Code node's printed output, each stream cut to `NODE_LOG_LIMIT` characters. The start and the end
 * are kept: the first lines say what the program did, the last ones (a stack trace) why it stopped.
 *
 * @example nodeLogs({ stdout: "hi\n", stderr: "", truncated: false }) // { stdout: "hi\n", stderr: "", truncated: false }
 */
export function nodeLogs(printed: { stdout: string; stderr: string; truncated: boolean }): NodeLogs {
  const stdout = bound(printed.stdout);
  const stderr = bound(printed.stderr);
  return {
    stdout,
    stderr,
    truncated: printed.truncated || stdout !== printed.stdout || stderr !== printed.stderr,
  };
}

function bound(text: string): string {
  if (text.length <= NODE_LOG_LIMIT) return text;
  const half = NODE_LOG_LIMIT / 2;
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n… ${cut} characters cut …\n${text.slice(-half)}`;
}
