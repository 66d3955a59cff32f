// A custom governed loop built only from the public LoopContext: Plan → approval → Act (re-planning when the model
// asks for more tools or the plan is edited by hand) → Verify, without Gather. docs/runner.md shows this file.
import type { Loop } from '../../src/task/index.ts';

export const planThenAct: Loop = {
  name: 'plan-then-act',
  version: '1',
  async run({ phases, budgets, emit }) {
    let signed = await phases.plan();
    await phases.approve(signed);
    for (let replans = 0; ; replans++) {
      const act = await phases.act({ signed });
      if ((act.replan || act.edited) && replans < 2) {
        signed = await phases.replan(signed, act);
        await phases.approve(signed);
        continue;
      }
      const report = await phases.verify({ signed, attempt: 1 });
      const left = budgets();
      if (!report.passed)
        emit({ type: 'warning', message: `verify failed; ${left.tokens ?? 'unlimited'} tokens left` });
      return { reason: report.passed ? 'completed' : 'verify.failed', output: act.output, verified: report.passed };
    }
  },
};
