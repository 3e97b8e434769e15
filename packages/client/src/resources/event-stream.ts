// Reads a task's Server-Sent Events (GET /api/tasks/{taskId}/events). The parser is the part of
// the SSE format the service sends (id, event, data lines, comment lines, blank-line dispatch,
// CRLF or LF): a few lines on fetch's body stream instead of a runtime dependency, so the SDK keeps
// needing nothing beyond Node.
export interface ServerEvent {
  id?: string;
  event: string;
  data: string;
}

/** The events of a text/event-stream body, as they arrive. */
export async function* readEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent, void, undefined> {
  const decoder = new TextDecoder();
  let buf = '';
  let ev: Partial<ServerEvent> & { data?: string } = {};
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).replace(/\r$/, '');
        buf = buf.slice(nl + 1);
        if (line === '') {
          if (ev.data !== undefined) yield { id: ev.id, event: ev.event ?? 'message', data: ev.data };
          ev = {};
          continue;
        }
        if (line.startsWith(':')) continue; // a comment (heartbeat)
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') ev.data = ev.data === undefined ? value : `${ev.data}\n${value}`;
        else if (field === 'event') ev.event = value;
        else if (field === 'id') ev.id = value;
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}
