import { describe, expect, it } from 'vitest';
import { isConnectionLost } from './connection-lost.ts';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isConnectionLost', () => {
  it('counts a database that went away: shut down, starting up, cut connections, refused sockets', () => {
    for (const error of [
      coded('57P01', 'terminating connection due to administrator command'),
      coded('57P03', 'the database system is shutting down'),
      coded('08006'),
      coded('25P03', 'terminating connection due to idle-in-transaction timeout'),
      coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'),
      coded('ECONNRESET'),
      new Error('Connection terminated unexpectedly'),
      new Error('Connection terminated due to connection timeout'),
      new Error('Client has encountered a connection error and is not queryable'),
    ])
      expect(isConnectionLost(error), error.message).toBe(true);
  });

  it('does not count a statement the database refused, nor things that are not errors', () => {
    for (const error of [
      coded('23505', 'duplicate key value violates unique constraint'),
      coded('42P01', 'relation "agency.tasks" does not exist'),
      coded('40001', 'could not serialize access'),
      coded('25P02', 'current transaction is aborted, commands ignored until end of transaction block'),
      new Error('syntax error at or near "SELEC"'),
      { code: 57 },
      'ECONNREFUSED',
      null,
      undefined,
    ])
      expect(isConnectionLost(error)).toBe(false);
  });
});
