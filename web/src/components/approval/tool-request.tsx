import { Digest } from '../digest.tsx';
import { JsonBlock } from '../json-block.tsx';

/** What a tool request asks to run: the tool, its (redacted) arguments and their digest. */
export function ToolRequest({ toolName, args, argsDigest }: { toolName: string; args: unknown; argsDigest: string }) {
  return (
    <div class="tool-request">
      <div class="kv">
        <span class="label">Tool</span>
        <code class="tool-chip tool-chip-lg" data-testid="approval-tool">
          {toolName}
        </code>
      </div>
      <div class="kv">
        <span class="label">Arguments</span>
        <Digest value={argsDigest} />
      </div>
      <JsonBlock value={args ?? null} testId="approval-tool-args" />
    </div>
  );
}
