/** One thing a Server-Sent Events stream sent: an event, or a comment (the server's heartbeats are comments). */
export type SseMessage = { kind: 'event'; id: string | undefined; event: string; data: string } | { kind: 'comment' };

/**
 * Parses a `text/event-stream` incrementally, as the HTML standard does (`id`, `event`, `data` and comment lines;
 * LF, CRLF or CR line ends, possibly split across chunks). Feed it decoded text; it returns what each chunk completed.
 */
export function createSseParser(): { feed(text: string): SseMessage[] } {
  let buffer = '';
  let id: string | undefined;
  let event = '';
  let data: string[] = [];

  const line = (text: string, out: SseMessage[]) => {
    if (text === '') {
      if (data.length > 0 || event !== '')
        out.push({ kind: 'event', id, event: event || 'message', data: data.join('\n') });
      id = undefined;
      event = '';
      data = [];
      return;
    }
    if (text.startsWith(':')) {
      out.push({ kind: 'comment' });
      return;
    }
    const colon = text.indexOf(':');
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? '' : text.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    // `retry` and unknown fields: the client has its own reconnection delays.
  };

  return {
    feed(text) {
      buffer += text;
      const out: SseMessage[] = [];
      const ends = /\r\n|\r|\n/g;
      let start = 0;
      for (let match = ends.exec(buffer); match; match = ends.exec(buffer)) {
        // A CR at the very end may be the first half of a CRLF split across chunks: wait for the next chunk.
        if (match[0] === '\r' && match.index === buffer.length - 1) break;
        line(buffer.slice(start, match.index), out);
        start = match.index + match[0].length;
      }
      buffer = buffer.slice(start);
      return out;
    },
  };
}
