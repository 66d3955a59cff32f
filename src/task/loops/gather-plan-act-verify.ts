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
    let replans = 0;
    for (let attempt = 1; ;) {
      const act = await phases.act({ signed, ...(feedback ? { feedback } : {}), continueFrom });
      if ((act.replan || act.edited) && replans < MAX_REPLANS) {
        replans++;
        signed = await phases.replan(signed, act);
        await phases.approve(signed);
        continueFrom = [
          ...act.messages,
          note(
            `The plan is now v${signed.version}; allowed tools: ${signed.plan.allowed_tools.join(', ')}. Continue the work.`,
          ),
        ];
        feedback = undefined;
        continue;
      }
      const report = await phases.verify({ signed, attempt });
      if (report.passed) return { reason: 'completed', output: act.output, verified: true };
      if (!context.spec.refine_on_verify_fail || attempt >= 2)
        return { reason: 'verify.failed', output: act.output, verified: false };
      attempt++;
      const failed = report.criteria.filter((criterion) => !criterion.passed);
      feedback = `Verification failed for:\n${failed.map((criterion) => `- ${criterion.id}: ${criterion.criterion} (${criterion.evidence})`).join('\n')}\nFix these, then summarise again.`;
      continueFrom = act.messages;
    }
  },
};

function note(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}
