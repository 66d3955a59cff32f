import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** The live MCP sessions of one HTTP listener, each with its own SDK server and transport. */
export type SessionStore = {
  /**
   * Serves a request of an existing session: `unknown` when the id is not a live session, `forbidden` when the session
   * was started by another principal (the name of another token).
   */
  serve(
    id: string,
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    principal: string | undefined,
  ): Promise<'served' | 'unknown' | 'forbidden'>;
  /** Starts a session for `principal` with an initialize request; false when the store is full of busy sessions. */
  initialize(req: IncomingMessage, res: ServerResponse, body: unknown, principal: string | undefined): Promise<boolean>;
  close(): Promise<void>;
};

type Session = {
  transport: StreamableHTTPServerTransport;
  server: Server;
  principal: string | undefined;
  active: number;
  lastSeen: number;
};

/**
 * Creates the session store. A session ends on `DELETE`; when no request has started or finished for `idleMs` and
 * none is running (an open notification stream does not count); or when it is the longest-idle one and room is
 * needed for a new client.
 */
export function createSessionStore(options: {
  newSession: () => Server;
  maxSessions: number;
  idleMs: number;
}): SessionStore {
  const { newSession, maxSessions, idleMs } = options;
  const sessions = new Map<string, Session>();
  const end = (session: Session) => {
    if (session.transport.sessionId !== undefined) sessions.delete(session.transport.sessionId);
    void session.transport.close().catch(() => undefined);
  };
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const session of sessions.values())
        if (session.active === 0 && now - session.lastSeen > idleMs) end(session);
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  return {
    async serve(id, req, res, body, principal) {
      const session = sessions.get(id);
      if (!session) return 'unknown';
      if (session.principal !== principal) return 'forbidden';
      await handle(session, req, res, body);
      return 'served';
    },
    async initialize(req, res, body, principal) {
      if (sessions.size >= maxSessions) {
        const idle = longestIdle(sessions);
        if (!idle) return false;
        end(idle);
      }
      const session = await open(newSession, sessions, principal);
      await handle(session, req, res, body);
      // An initialize request the transport refused leaves no session behind.
      if (session.transport.sessionId === undefined) await session.server.close();
      return true;
    },
    async close() {
      clearInterval(sweep);
      await Promise.all([...sessions.values()].map((session) => session.transport.close().catch(() => undefined)));
      sessions.clear();
    },
  };
}

async function open(
  newSession: () => Server,
  sessions: Map<string, Session>,
  principal: string | undefined,
): Promise<Session> {
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      sessions.set(id, session);
    },
  });
  const server = newSession();
  const session: Session = { transport, server, principal, active: 0, lastSeen: Date.now() };
  await server.connect(transport);
  // Chained after connect, which installs the transport's own close handling.
  const onclose = transport.onclose;
  transport.onclose = () => {
    onclose?.();
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
  };
  return session;
}

async function handle(session: Session, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  session.lastSeen = Date.now();
  // A client keeps a GET stream open for server notifications all session long: only requests count as activity.
  if (req.method !== 'GET') {
    session.active++;
    res.once('close', () => {
      session.active--;
      session.lastSeen = Date.now();
    });
  }
  await session.transport.handleRequest(req, res, body);
}

function longestIdle(sessions: ReadonlyMap<string, Session>): Session | undefined {
  let oldest: Session | undefined;
  for (const session of sessions.values()) {
    if (session.active === 0 && (!oldest || session.lastSeen < oldest.lastSeen)) oldest = session;
  }
  return oldest;
}
