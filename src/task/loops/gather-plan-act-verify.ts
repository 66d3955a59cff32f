import type { Message } from '../../core/messages.ts';
import type { Loop, LoopContext } from '../loop.ts';

/** How many times Act may ask to re-plan before the run gives up on new tools. */
const MAX_REPLANS = 3;

/**
 * The default loop: Gather → Plan → (approval) → Act → Verify, with at most one refine-and-retry when Verify fails
 * (if the spec allows it), and re-planning when Act needs more tools or the plan is edited by hand. It uses only the
 * public `LoopContext`; write your own `Loop` the same way.
 */
export const gatherPlanActVerify: Loop = {
  name: 'gather-plan-act-verify',
  version: '1',
  async run(context: LoopContext) {
    const { phases } = context;
    await phases.gather();
    let signed = await phases.plan();
    await phases.approve(signed);
    let feedback: string | undefined;
    let continueFrom: Message[] = [];
    // The templates feedback and continueFrom were rendered from, journaled with Act's calls.
    let promptRefs: string[] = [];
    let replans = 0;
    for (let attempt = 1; ;) {
      const act = await phases.act({ signed, ...(feedback ? { feedback } : {}), continueFrom, promptRefs });
      if ((act.replan || act.edited) && replans < MAX_REPLANS) {
        replans++;
        signed = await phases.replan(signed, act);
        await phases.approve(signed);
        const replanned = context.prompts.render('runner.replanned', {
          version: signed.version,
          tools: signed.plan.allowed_tools.join(', '),
        });
        continueFrom = [...act.messages, note(replanned.text)];
        promptRefs = [replanned.ref];
        feedback = undefined;
        continue;
      }
      const report = await phases.verify({ signed, attempt });
      if (report.passed) return { reason: 'completed', output: act.output, verified: true };
      if (!context.spec.refine_on_verify_fail || attempt >= 2)
        return { reason: 'verify.failed', output: act.output, verified: false };
      attempt++;
      const failed = report.criteria.filter((criterion) => !criterion.passed);
      const refine = context.prompts.render('runner.refine', {
        failures: failed
          .map((criterion) => `- ${criterion.id}: ${criterion.criterion} (${criterion.evidence})`)
          .join('\n'),
      });
      feedback = refine.text;
      continueFrom = act.messages;
      promptRefs = [refine.ref];
    }
  },
};

function note(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}
