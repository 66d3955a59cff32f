// The GitHub director's prompt templates: `{{number}}`, `{{title}}` and `{{body}}` (or the Go-style `{{.Number}}`,
// `{{.Title}}`, `{{.Body}}` of older configs) filled in with the fields. Any other placeholder is refused
// when the config is loaded, so a typo never reaches a worker as literal braces.

/** The fields a prompt template may name. */
export type TemplateFields = { number: number; title: string; body: string };

const PLACEHOLDER = /\{\{\s*\.?([A-Za-z_]+)\s*\}\}/g;
const NAMES = new Set(['number', 'title', 'body']);

/** The placeholders of `template` that are not `number`, `title` or `body` (any case, with or without a dot). */
export function unknownPlaceholders(template: string): string[] {
  const unknown = [...template.matchAll(PLACEHOLDER)]
    .filter((match) => !NAMES.has(match[1]!.toLowerCase()))
    .map((match) => match[0]);
  return [...new Set(unknown)];
}

/** `template` with its placeholders replaced by the fields. */
export function renderPrompt(template: string, fields: TemplateFields): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const key = name.toLowerCase();
    if (key === 'number') return String(fields.number);
    if (key === 'title') return fields.title;
    if (key === 'body') return fields.body;
    return whole;
  });
}
