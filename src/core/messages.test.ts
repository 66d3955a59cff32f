import { describe, expect, it } from 'vitest';
import { userMessage } from './messages.ts';

describe('message builders', () => {
  it('builds user messages from text', () => {
    expect(userMessage('hi')).toEqual({ role: 'user', content: [{ type: 'text', text: 'hi' }] });
  });
});
