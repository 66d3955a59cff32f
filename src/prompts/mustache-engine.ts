// The `mustache` engine: a small, safe subset of Mustache for prompt templates. A template is parsed once into
// tokens; rendering walks the tokens and inserts each value as it is, so a value is never parsed again (a variable
// holding `{{…}}` stays literal text). Names are plain identifiers looked up as own properties: no dotted paths, no
// prototype, no functions, no partials, no code.

/** A variable name: a letter or `_`, then letters, digits and `_`. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** How deep sections may nest. */
const MAX_DEPTH = 32;

/** A parsed piece of a template. */
export type TemplateToken =
  | { kind: 'text'; text: string }
  | { kind: 'var'; name: string }
  | { kind: 'section'; name: string; inverted: boolean; children: TemplateToken[] };

/** A syntax error, with the 1-based line and column of the tag at fault. */
export type TemplateSyntaxError = { line: number; column: number; message: string };

type Tag = { type: '' | '#' | '^' | '/' | '!'; name: string; start: number; end: number };
type Open = { tag: Tag; children: TemplateToken[] };

/**
 * Parses a template: `{{name}}` inserts a variable; `{{#name}}…{{/name}}` keeps its content when the variable is
 * true, a non-empty string or a non-zero number, `{{^name}}…{{/name}}` when it is not; `{{! … }}` is a comment; `\{{`
 * is a literal `{{`. A line holding only a section or comment tag (and spaces) is left out whole, as Mustache does.
 */
export function parseTemplate(text: string): { tokens: TemplateToken[] } | { error: TemplateSyntaxError } {
  const root: TemplateToken[] = [];
  const stack: Open[] = [];
  let out = root;
  let pending = '';
  let at = 0;
  const fail = (index: number, message: string) => ({ error: { ...position(text, index), message } });
  while (at < text.length) {
    const open = text.indexOf('{{', at);
    if (open < 0) {
      pending += text.slice(at);
      break;
    }
    if (open > 0 && text[open - 1] === '\\') {
      pending += `${text.slice(at, open - 1)}{{`;
      at = open + 2;
      continue;
    }
    const tag = readTag(text, open);
    if ('error' in tag) return fail(open, tag.error);
    pending += text.slice(at, open);
    const standalone = tag.type !== '' && isStandalone(text, tag);
    if (standalone) pending = pending.slice(0, pending.lastIndexOf('\n') + 1);
    if (pending !== '') out.push({ kind: 'text', text: pending });
    pending = '';
    at = standalone ? afterLine(text, tag.end) : tag.end;
    if (tag.type === '') out.push({ kind: 'var', name: tag.name });
    else if (tag.type === '#' || tag.type === '^') {
      if (stack.length >= MAX_DEPTH) return fail(open, `sections nest deeper than ${MAX_DEPTH}`);
      const section: TemplateToken = { kind: 'section', name: tag.name, inverted: tag.type === '^', children: [] };
      out.push(section);
      stack.push({ tag, children: out });
      out = section.children;
    } else if (tag.type === '/') {
      const top = stack.pop();
      if (!top) return fail(open, `"{{/${tag.name}}}" closes a section that was never opened`);
      if (top.tag.name !== tag.name)
        return fail(open, `"{{/${tag.name}}}" closes "{{${top.tag.type}${top.tag.name}}}"; close that one first`);
      out = top.children;
    }
  }
  if (pending !== '') out.push({ kind: 'text', text: pending });
  const unclosed = stack.pop();
  if (unclosed) {
    const { tag } = unclosed;
    return fail(tag.start, `"{{${tag.type}${tag.name}}}" is never closed; add "{{/${tag.name}}}"`);
  }
  return { tokens: root };
}

function readTag(text: string, open: number): Tag | { error: string } {
  const close = text.indexOf('}}', open + 2);
  if (close < 0) return { error: '"{{" is never closed with "}}"' };
  const inner = text.slice(open + 2, close);
  const sigil = inner.trimStart()[0] ?? '';
  if (sigil === '!') return { type: '!', name: '', start: open, end: close + 2 };
  const type = sigil === '#' || sigil === '^' || sigil === '/' ? sigil : '';
  const name = (type === '' ? inner : inner.trimStart().slice(1)).trim();
  if (inner.includes('{{')) return { error: '"{{" opens inside another tag' };
  if (!VARIABLE_NAME.test(name)) {
    return {
      error: `"{{${inner}}}" is not a tag: a variable is a name of letters, digits and "_" (at most 64), e.g. "{{tools}}"`,
    };
  }
  return { type, name, start: open, end: close + 2 };
}

// A tag alone on its line, with only spaces or tabs around it.
function isStandalone(text: string, tag: Tag): boolean {
  const lineStart = text.lastIndexOf('\n', tag.start - 1) + 1;
  const lineEnd = text.indexOf('\n', tag.end);
  const before = text.slice(lineStart, tag.start);
  const after = text.slice(tag.end, lineEnd < 0 ? text.length : lineEnd).replace(/\r$/, '');
  return /^[ \t]*$/.test(before) && /^[ \t]*$/.test(after);
}

function afterLine(text: string, from: number): number {
  const lineEnd = text.indexOf('\n', from);
  return lineEnd < 0 ? text.length : lineEnd + 1;
}

/** The 1-based line and column of a character index. */
export function position(text: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: index - lineStart + 1 };
}

/** Every variable a template uses, in order of first use. */
export function variablesOf(tokens: readonly TemplateToken[], found = new Set<string>()): string[] {
  for (const token of tokens) {
    if (token.kind === 'var') found.add(token.name);
    else if (token.kind === 'section') {
      found.add(token.name);
      variablesOf(token.children, found);
    }
  }
  return [...found];
}

/** A value a variable may hold. */
export type PromptValue = string | number | boolean;

/**
 * Renders parsed tokens with `vars`, which must hold every variable used (checked beforehand). Values are inserted
 * verbatim.
 */
export function renderTokens(tokens: readonly TemplateToken[], vars: Readonly<Record<string, PromptValue>>): string {
  let out = '';
  for (const token of tokens) {
    if (token.kind === 'text') out += token.text;
    else if (token.kind === 'var') out += String(vars[token.name]);
    else if (isTruthy(vars[token.name]) !== token.inverted) out += renderTokens(token.children, vars);
  }
  return out;
}

function isTruthy(value: PromptValue | undefined): boolean {
  return value !== undefined && value !== false && value !== '' && value !== 0;
}
