import type { Message } from '../../core/messages.ts';
import type { Loop, LoopContext } from '../loop.ts';
import { actPhase, planWithTools, readEditedPlan } from '../phases/act.ts';
import { approvePlan } from '../phases/approve.ts';
import { gatherPhase } from '../phases/gather.ts';
import { planPhase, type SignedPlan, writePlan } from '../phases/plan.ts';
import { verifyPhase } from '../phases/verify.ts';

/** How many times Act may ask to re-plan before the run gives up on new tools. */
const MAX_REPLANS = 3;

/**
 * The default loop: Gather → Plan → (approval) → Act → Verify, with at most one refine-and-retry when Verify fails
 * (if the spec allows it), and re-planning when Act needs more tools or the plan is edited by hand. It is built only
 * from the public phase functions; write your own `Loop` the same way.
 */
export const gatherPlanActVerify: Loop = {
  name: 'gather-plan-act-verify',
  version: '1',
  async run(context: LoopContext) {
    await gatherPhase(context);
    let signed = await planPhase(context);
    await approvePlan(context, signed);
    let feedback: string | undefined;
    let continueFrom: Message[] = [];
    let replans = 0;
    for (let attempt = 1; ;) {
      const act = await actPhase(context, { signed, ...(feedback ? { feedback } : {}), continueFrom });
      if ((act.replan || act.edited) && replans < MAX_REPLANS) {
        replans++;
        signed = await replan(
          context,
          signed,
          act.edited === true,
          act.replan?.addTools ?? [],
          act.replan?.reason ?? 'edited by hand',
        );
        await approvePlan(context, signed);
        continueFrom = [
          ...act.messages,
          note(
            `The plan is now v${signed.version}; allowed tools: ${signed.plan.allowed_tools.join(', ')}. Continue the work.`,
          ),
        ];
        feedback = undefined;
        continue;
      }
      const report = await verifyPhase(context, { signed, attempt });
      if (report.passed) return { reason: 'completed', output: act.output, verified: true };
      if (!context.session.spec.refine_on_verify_fail || attempt >= 2)
        return { reason: 'verify.failed', output: act.output, verified: false };
      attempt++;
      const failed = report.criteria.filter((criterion) => !criterion.passed);
      feedback = `Verification failed for:\n${failed.map((criterion) => `- ${criterion.id}: ${criterion.criterion} (${criterion.evidence})`).join('\n')}\nFix these, then summarise again.`;
      continueFrom = act.messages;
    }
  },
};

async function replan(
  context: LoopContext,
  signed: SignedPlan,
  edited: boolean,
  addTools: string[],
  reason: string,
): Promise<SignedPlan> {
  if (edited) return writePlan(context, await readEditedPlan(context), 'edited by hand after approval', signed.plan);
  return writePlan(
    context,
    planWithTools(signed.plan, { addTools, reason }),
    `re-planned to add ${addTools.join(', ')}: ${reason}`,
    signed.plan,
  );
}

function note(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}
