/** Tool names as monospace chips. */
export function ToolChips({ tools, testId }: { tools: readonly string[]; testId?: string }) {
  if (tools.length === 0) return <span class="muted small">none</span>;
  return (
    <span class="tool-chips" data-testid={testId}>
      {tools.map((tool) => (
        <code key={tool} class="tool-chip" data-tool={tool}>
          {tool}
        </code>
      ))}
    </span>
  );
}
