import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { classifyModelError, parseRetryAfter, toModelError } from './classify-error.ts';

const apiError = (statusCode: number | undefined, data?: unknown, headers?: Record<string, string>, cause?: unknown) =>
  new APICallError({
    message: 'failed',
    url: 'https://api.example/v1',
    requestBodyValues: {},
    ...(statusCode === undefined ? {} : { statusCode }),
    ...(headers ? { responseHeaders: headers } : {}),
    ...(data ? { data, responseBody: JSON.stringify(data) } : {}),
    ...(cause ? { cause } : {}),
  });

describe('classifyModelError', () => {
  it.each([
    [429, undefined, 'rate_limit'],
    [500, undefined, 'retryable'],
    [502, undefined, 'retryable'],
    [503, undefined, 'retryable'],
    [529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, 'retryable'],
    [408, undefined, 'retryable'],
    [400, undefined, 'fatal'],
    [401, { error: { type: 'invalid_request_error', code: 'invalid_api_key' } }, 'fatal'],
    [403, undefined, 'fatal'],
    [404, { type: 'error', error: { type: 'not_found_error' } }, 'fatal'],
    [429, { error: { type: 'insufficient_quota', code: 'insufficient_quota' } }, 'fatal'],
    [429, { error: { type: 'requests', code: 'rate_limit_exceeded' } }, 'rate_limit'],
    [429, { type: 'error', error: { type: 'rate_limit_error' } }, 'rate_limit'],
  ])('HTTP %s %j is %s', (status, body, expected) => {
    expect(classifyModelError(apiError(status, body)).class).toBe(expected);
  });

  it('classifies network failures as retryable', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(classifyModelError(new TypeError('fetch failed', { cause: reset }))).toMatchObject({
      class: 'retryable',
      networkCode: 'ECONNRESET',
    });
    expect(classifyModelError(apiError(undefined, undefined, undefined, reset))).toMatchObject({
      class: 'retryable',
      networkCode: 'ECONNRESET',
    });
    expect(classifyModelError(new TypeError('fetch failed')).class).toBe('retryable');
  });

  it('classifies a mid-stream error event by its provider type', () => {
    const event = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    expect(classifyModelError(event)).toMatchObject({
      class: 'retryable',
      providerType: 'overloaded_error',
      message: 'Overloaded',
    });
  });

  it('treats an unknown thrown value as fatal', () => {
    expect(classifyModelError(new Error('bug')).class).toBe('fatal');
  });

  it('wraps failures in AgencyErrors that say which model failed and how', () => {
    const error = toModelError(apiError(429, undefined, { 'retry-after': '2' }), {
      provider: 'openai.chat',
      modelId: 'gpt-4o',
    });
    expect(error).toMatchObject({
      code: 'model_rate_limit',
      retryable: true,
      details: { retryAfterMs: 2000, status: 429 },
    });
    expect(error.message).toMatch(/^openai\.chat:gpt-4o failed \(HTTP 429\)/);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(parseRetryAfter({ 'Retry-After': '3' })).toBe(3000);
    expect(parseRetryAfter({ 'retry-after-ms': '250', 'retry-after': '3' })).toBe(250);
    expect(
      parseRetryAfter({ 'retry-after': 'Wed, 21 Oct 2015 07:28:05 GMT' }, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT')),
    ).toBe(5000);
    expect(parseRetryAfter({ 'retry-after': 'soon' })).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
