// Telling a database that went away (down, restarting, the connection cut) from a statement that failed: the first
// is waited out and tried again, the second is reported.

// SQLSTATE classes 08 (connection exception) and 57P (the server shutting down, or not yet accepting connections),
// and 25P03: the server ended a session left idle in a transaction (a worker paused mid-write; database.ts), whose
// write is tried again on a new connection, where the epoch fence judges it.
const SQLSTATE = /^(08|57P|25P03$)/;
const SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);
// What `pg` says when the socket closes under a query, or a pooled client's connect times out.
const PG_MESSAGE = /Connection terminated|connection timeout|Client has encountered a connection error/i;

/** Whether `error` (from `pg`) means the database is unreachable for now, rather than a statement it refused. */
export function isConnectionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (SQLSTATE.test(code) || SOCKET.has(code))) return true;
  return error instanceof Error && PG_MESSAGE.test(error.message);
}
