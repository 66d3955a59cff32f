/** A value as indented JSON, in a scrollable monospace block. */
export function JsonBlock({ value, testId }: { value: unknown; testId?: string }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (
    <pre class="code-block" data-testid={testId}>
      {text ?? 'undefined'}
    </pre>
  );
}
