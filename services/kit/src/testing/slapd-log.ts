/**
 * What a throwaway slapd prints, read as it comes: the last few kilobytes (for the error when it
 * fails to start) and, when it runs with `loglevel stats` (`-d stats`), a count of the searches it
 * served — the directory's own account of what a client asked, independent of the client's counter.
 * slapd writes one `conn=N op=M SRCH base="…" scope=… filter="…"` line per search request (then
 * `SRCH attr=…` and `SEARCH RESULT` lines for the same operation, not counted).
 */
export class SlapdLog {
  private tail = "";
  private partial = "";
  private searchCount = 0;

  /** How much of the output is kept for an error message. */
  static readonly TAIL_CHARS = 16 * 1024;

  write(chunk: Buffer | string): void {
    const text = chunk.toString();
    this.tail = (this.tail + text).slice(-SlapdLog.TAIL_CHARS);
    // Lines may arrive split across chunks: count whole lines only.
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) if (SEARCH_REQUEST.test(line)) this.searchCount++;
  }

  /** Search requests served so far (always 0 without `loglevel stats`). */
  get searches(): number {
    return this.searchCount;
  }

  text(): string {
    return this.tail;
  }
}

const SEARCH_REQUEST = / op=\d+ SRCH base=/;
