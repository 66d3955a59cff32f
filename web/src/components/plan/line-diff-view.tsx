import { useMemo, useState } from 'preact/hooks';
import { diffLines, foldUnchanged } from '../../lib/line-diff.ts';

/** A unified diff of two texts with line numbers; long unchanged runs fold away unless expanded. */
export function LineDiffView({
  before,
  after,
  testId = 'plan-diff-lines',
}: {
  before: string;
  after: string;
  testId?: string;
}) {
  const [expanded, setExpanded] = useState(false);
  const lines = useMemo(() => diffLines(before, after), [before, after]);
  const shown = expanded ? lines : foldUnchanged(lines);
  const changed = lines.filter((line) => line.kind !== 'same').length;
  return (
    <div class="diff" data-testid={testId}>
      <div class="diff-toolbar">
        <span class="small muted">
          {changed === 0
            ? 'Identical JSON'
            : `${lines.filter((l) => l.kind === 'added').length} added, ${lines.filter((l) => l.kind === 'removed').length} removed lines`}
        </span>
        <button
          type="button"
          class="btn btn-sm btn-ghost"
          onClick={() => setExpanded(!expanded)}
          data-testid="plan-diff-expand"
        >
          {expanded ? 'Fold unchanged' : 'Show all lines'}
        </button>
      </div>
      <div class="diff-body">
        <table class="diff-table">
          <tbody>
            {shown.map((line, index) =>
              line.kind === 'gap' ? (
                <tr class="diff-gap" key={`gap-${index}`}>
                  <td colSpan={4}>
                    ⋯ {line.lines} unchanged line{line.lines === 1 ? '' : 's'}
                  </td>
                </tr>
              ) : (
                <tr class={`diff-${line.kind}`} key={index} data-kind={line.kind}>
                  <td class="diff-no">{line.kind === 'added' ? '' : line.before}</td>
                  <td class="diff-no">{line.kind === 'removed' ? '' : line.after}</td>
                  <td class="diff-sign">{line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' '}</td>
                  <td class="diff-text">{line.text}</td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}
