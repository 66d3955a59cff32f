import { describe, expect, it } from 'vitest';
import { BUILTIN_PROMPTS } from './builtin-prompts.ts';
import { promptDigest, storedTemplateProblems } from './prompt-checks.ts';
import { promptRef } from './prompt-store.ts';
import { renderPrompt } from './render-prompt.ts';

// A shipped version is never edited: journals and cassettes name it, and operators pin it. To change a built-in
// prompt, add version 2 after version 1 and add its digest here.
const SHIPPED: Record<string, string> = {
  'runner.persona@1': '972ac5303e1a08c35505bf87de0ec95e399de18c2bdf25a3273d22e46de4db4f',
  'runner.gather@1': '9ff56b2669f1fd43e1e81677fd5b7bd6fe97ba92d2bbf66ec4102c16783c9971',
  'runner.plan@1': '79423b2f29c65660d1fbfc668ee4eee4bbd768f9ee1843bc23141740d9d688f9',
  'runner.act@1': '28c4bb779df6b1d20dadc1d7efa9d048e30d9b681eabc6c17f9da9f69f0cf187',
  'runner.verify@1': '93ac3b196404abf70032bf52992c566b4bafe2f022f15461f7f304ef4764a84b',
  'runner.refine@1': '8a4b885043e43cf4b8558355892de5aa9a25b0e41ceda170e4e74dbe4b42d96a',
  'runner.replanned@1': '26deaf02d2847d9f728512682c65133d5de24f1895db176e8d7e04511ae65e37',
  'runner.persona@2': '95b7067d4289b5e73e5311c41248e6a0dab08f44a01527eae33f2a609948c842',
  'runner.gather@2': '3cf9eb938277187eeb518b5fd4c852307a3a43b154067dfc3101a158fb91da0d',
  'runner.plan@2': 'dd6a41459e493508dabe742a459811222ff8084fea57cc91d7c84be0c12dfdc9',
  'runner.act@2': 'e0371ac649820e288cddddf0a4e970864b7fbda6f19abacb9b3b1e12311cedd8',
  'runner.verify@2': 'ec0e510ec9143abf9ce3dd9bd4a565bb06e905321b2fc64289aaed1cc40b8786',
  'runner.propose@1': 'ae827dae9d83eba9928ac1c5cdd52b27829ddd50bebe37d882d288eef55febed',
  'agent.synthesis@1': 'bd48030b82ab8b01c188b5599fa6e2ff2983bc0cdb6dbfebb1f105dc20d6f291',
  'agent.repair@1': 'f8220d9a6fa1a6eec7add71636d807af24b4d4ba6335b524be0ab0443256c249',
  'agent.compress@1': '0d30fe94329c30ac0064526127eddeb4614d683022bad0dc0ddf73d170f417ae',
};

const byRef = (ref: string) => BUILTIN_PROMPTS.find((template) => promptRef(template) === ref)!;

describe('the built-in prompts', () => {
  it('are every shipped version, unchanged, and sound', () => {
    expect(
      Object.fromEntries(BUILTIN_PROMPTS.map((template) => [promptRef(template), promptDigest(template)])),
    ).toEqual(SHIPPED);
    for (const template of BUILTIN_PROMPTS) expect(storedTemplateProblems(template)).toEqual([]);
  });

  it('render Act with and without feedback, as one text', () => {
    const act = byRef('runner.act@1');
    const plain = renderPrompt(act, { feedback: '', plan: '{"goal":"x"}' }).text;
    expect(plain).toMatch(/^Phase: ACT\. Carry out/);
    expect(plain.endsWith('\n\n{"goal":"x"}')).toBe(true);
    expect(renderPrompt(act, { feedback: 'Fix c1.', plan: '{}' }).text).toBe(
      `Fix c1.\n\n${plain.replace('{"goal":"x"}', '{}')}`,
    );
  });

  it('render Act@2 with the plan after a blank line, and the feedback first', () => {
    const act = byRef('runner.act@2');
    const plain = renderPrompt(act, { feedback: '', plan: 'Goal: x' }).text;
    expect(plain).toMatch(/^Phase: ACT\. Carry out the approved plan below; only its allowed_tools will run\./);
    expect(plain.endsWith('with paths.\n\nGoal: x')).toBe(true);
    expect(renderPrompt(act, { feedback: 'Fix c1.', plan: 'Goal: x' }).text).toBe(`Fix c1.\n\n${plain}`);
  });

  it('carry in version 2 the duties a model needs, in fewer characters than version 1', () => {
    const duties: Record<string, RegExp[]> = {
      'runner.persona': [/task\/ \(read-only\)/, /progress\/artifacts\//, /never invent file contents or results/],
      'runner.gather': [/Phase: GATHER/, /links the task lists/, /change nothing/, /source/],
      'runner.plan': [
        /Phase: PLAN/,
        /JSON in the response format/,
        /only these will run/,
        /check that\nVerify runs: file_exists, contains, json_validate or test_runner/,
      ],
      'runner.act': [/Phase: ACT/, /only its allowed_tools will run/, /summarise/],
      'runner.verify': [
        /Phase: VERIFY/,
        /Read the deliverables/,
        /each criterion/,
        /whether it passed, and the evidence/,
      ],
    };
    for (const [id, patterns] of Object.entries(duties)) {
      const [one, two] = [byRef(`${id}@1`), byRef(`${id}@2`)];
      for (const pattern of patterns) expect(two.text, `${id}@2`).toMatch(pattern);
      expect(two.requiredVars).toEqual(one.requiredVars);
      expect(two.text.length, id).toBeLessThan(one.text.length);
    }
  });

  it('render Verify with its "Not delivered" part only when something was refused', () => {
    const verify = byRef('runner.verify@1');
    const none = renderPrompt(verify, { criteria: '- c1: x', deliverables: 'a.md', refused: '' }).text;
    expect(none.endsWith('Criteria:\n- c1: x\n\nDeliverables: a.md')).toBe(true);
    const some = renderPrompt(verify, { criteria: '- c1: x', deliverables: 'a.md', refused: '- b.md: too big' }).text;
    expect(some).toBe(`${none}\n\nNot delivered:\n- b.md: too big`);
  });
});

describe('version 2 of Verify', () => {
  it('renders "Not delivered" only when something was refused', () => {
    const verify = byRef('runner.verify@2');
    const none = renderPrompt(verify, { criteria: '- c1: x', deliverables: 'a.md', refused: '' }).text;
    expect(none.endsWith('Criteria:\n- c1: x\nDeliverables: a.md')).toBe(true);
    const some = renderPrompt(verify, { criteria: '- c1: x', deliverables: 'a.md', refused: '- b.md: too big' }).text;
    expect(some).toBe(`${none}\nNot delivered:\n- b.md: too big`);
  });
});
