// Helpers for the scripted stand-ins that recorded the examples' cassettes through the real governed loop.
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';

/** The phase a request belongs to, read from its ask. */
export function phaseOf(options: LanguageModelV4CallOptions): 'gather' | 'plan' | 'act' | 'verify' | 'other' {
  for (let i = options.prompt.length - 1; i >= 0; i--) {
    const message = options.prompt[i];
    if (message?.role !== 'user') continue;
    const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    if (text.includes('Phase: GATHER')) return 'gather';
    if (text.includes('Phase: PLAN')) return 'plan';
    if (text.includes('Phase: ACT')) return 'act';
    if (text.includes('Phase: VERIFY')) return 'verify';
  }
  return 'other';
}

/** How many tool-result messages follow the phase's ask: which turn of the phase this is. */
export function turnOf(options: LanguageModelV4CallOptions): number {
  let turns = 0;
  for (let i = options.prompt.length - 1; i >= 0; i--) {
    const message = options.prompt[i];
    if (message?.role === 'tool') turns++;
    if (
      message?.role === 'user' &&
      message.content.some((part) => part.type === 'text' && part.text.includes('Phase:'))
    )
      break;
  }
  return turns;
}
