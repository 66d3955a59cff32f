import { AgencyError } from '../core/errors.ts';
import { parseTemplate, renderTokens, type TemplateToken } from './mustache-engine.ts';
import { type PromptTemplate, type PromptVars, promptRef, type RenderedPrompt } from './prompt-store.ts';

// Parsed once per template object: a run renders the same few templates at every step.
const parsed = new WeakMap<PromptTemplate, TemplateToken[]>();

/**
 * Renders one template version with `vars`, synchronously. Every variable the text uses must be given, as a string,
 * a number or a boolean; variables it does not use are ignored (a caller may pass all it has, and a template may use
 * fewer). Values are inserted as they are and never parsed again.
 *
 * @throws AgencyError `prompt_variable_missing` naming the variable and the template, or `invalid_argument` for a
 * value of another type.
 * @example
 * renderPrompt(template, { tools: '- fs_read' }).text
 */
export function renderPrompt(template: PromptTemplate, vars: PromptVars): RenderedPrompt {
  const ref = promptRef(template);
  for (const name of template.requiredVars) {
    if (!Object.hasOwn(vars, name) || vars[name] === undefined) {
      const given = Object.keys(vars);
      throw new AgencyError(
        'prompt_variable_missing',
        `Prompt ${ref} uses the variable "${name}", which the render did not give` +
          ` (given: ${given.length > 0 ? given.join(', ') : 'none'}); pass it, or put a version that does not use it`,
        { details: { id: template.id, version: template.version, variable: name } },
      );
    }
    const value: unknown = vars[name];
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new AgencyError(
        'invalid_argument',
        `Prompt ${ref}: the variable "${name}" must be a string, a number or a boolean, not ${value === null ? 'null' : typeof value}`,
        { details: { id: template.id, version: template.version, variable: name } },
      );
    }
  }
  return { text: renderTokens(tokensOf(template), vars), id: template.id, version: template.version, ref };
}

function tokensOf(template: PromptTemplate): TemplateToken[] {
  let tokens = parsed.get(template);
  if (!tokens) {
    const result = parseTemplate(template.text);
    // A stored template was checked when it was put and when it was read back; this is a bug, not bad input.
    if ('error' in result)
      throw new AgencyError('prompt_invalid', `Prompt ${promptRef(template)}: ${result.error.message}`);
    tokens = result.tokens;
    parsed.set(template, tokens);
  }
  return tokens;
}
