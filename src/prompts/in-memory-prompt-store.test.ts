import { describe, expect, it } from 'vitest';
import { promptStoreContract } from '../testing/prompt-store-contract.ts';
import { createInMemoryPromptStore } from './in-memory-prompt-store.ts';
import { BUILTIN_PROMPTS } from './builtin-prompts.ts';

describe('the in-memory prompt store', () => {
  for (const test of promptStoreContract(() => createInMemoryPromptStore())) it(test.name, test.run);

  it('starts with the versions it is given, and puts after the highest', async () => {
    const store = createInMemoryPromptStore({ templates: BUILTIN_PROMPTS });
    expect((await store.get('runner.plan'))?.version).toBe(2);
    const put = await store.put({ id: 'runner.plan', text: 'Plan with {{tools}}', createdBy: 'ops' });
    expect(put.version).toBe(3);
    expect(await store.audit()).toHaveLength(1);
  });

  it('refuses a malformed or repeated starting version, naming it', () => {
    const [first] = BUILTIN_PROMPTS;
    expect(() => createInMemoryPromptStore({ templates: [first!, first!] })).toThrow(
      /runner\.persona@1: version: given twice/,
    );
    expect(() => createInMemoryPromptStore({ templates: [{ ...first!, version: 0 }] })).toThrow(
      /version: 0 is not a version/,
    );
    expect(() => createInMemoryPromptStore({ templates: [{ ...first!, text: '{{x' }] })).toThrow(/never closed/);
  });
});
