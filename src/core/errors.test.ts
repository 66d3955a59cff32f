import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from './error-codes.ts';
import { AgencyError, isAbortError } from './errors.ts';

describe('AgencyError', () => {
  it('carries code, default retryability, cause and details', () => {
    const cause = new Error('socket hang up');
    const error = new AgencyError('model_retryable', 'provider failed', { cause, details: { attempt: 2 } });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('AgencyError');
    expect(error.code).toBe('model_retryable');
    expect(error.retryable).toBe(ERROR_CODES.model_retryable.retryable);
    expect(error.cause).toBe(cause);
    expect(error.toJSON()).toEqual({
      name: 'AgencyError',
      code: 'model_retryable',
      message: 'provider failed',
      retryable: true,
      details: { attempt: 2 },
    });
  });

  it('lets the caller override retryability', () => {
    expect(new AgencyError('model_rate_limit', 'quota', { retryable: false }).retryable).toBe(false);
  });

  it('is recognised by its Symbol.for brand, across copies of the class', () => {
    const foreign = Object.assign(new Error('x'), { [Symbol.for('agency.error')]: true, code: 'internal' });
    expect(AgencyError.isInstance(foreign)).toBe(true);
    expect(AgencyError.isInstance(new Error('x'))).toBe(false);
    expect(AgencyError.isInstance(null)).toBe(false);
  });

  it('wraps unknown thrown values at a boundary', () => {
    expect(AgencyError.from('boom')).toMatchObject({ code: 'internal', message: 'boom' });
    expect(AgencyError.from({ weird: true }, 'tool_failed')).toMatchObject({ code: 'tool_failed' });
    const abort = new DOMException('aborted', 'AbortError');
    expect(AgencyError.from(abort).code).toBe('aborted');
    expect(isAbortError(abort)).toBe(true);
    const original = new AgencyError('timeout', 'slow');
    expect(AgencyError.from(original)).toBe(original);
  });
});
