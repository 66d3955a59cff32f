import { AgencyError } from '../core/errors.ts';
import type { Redactor } from '../core/redact.ts';
import { type NamePatterns, nameMatcher } from './glob.ts';
import { mapPayloadText } from './map-text.ts';
import type { PolicyRequest, PolicyRule } from './policy-types.ts';

/** Where a content filter looks. */
export type ContentStage = 'model-input' | 'tool-input' | 'tool-output' | 'memory-write';

/** Options for {@link contentFilter}. */
export type ContentFilterOptions = {
  id: string;
  stages: readonly ContentStage[];
  /** Content matching any of these is blocked or redacted. */
  patterns?: readonly RegExp[];
  /** Content for which this returns true is blocked (block only: a function cannot say what to cut out). */
  test?(text: string): boolean;
  /** Finds and redacts secrets with a {@link Redactor}, e.g. the default one. */
  redactor?: Redactor;
  /** `block` denies the request; `redact` replaces the matches and lets it through. */
  action: 'block' | 'redact';
  /** @default `[REDACTED:<id>]` */
  replacement?: string;
  /** Limits tool stages to these tools. */
  tools?: NamePatterns;
  /** Limits the memory-write stage to these scopes (names or globs, e.g. `org:*`). */
  scopes?: NamePatterns;
};

/**
 * Blocks or redacts content that matches `patterns`, `test` or a redactor, at the chosen stages. The reason it
 * gives names the filter and the stage, never the content that matched.
 *
 * @throws AgencyError `invalid_argument` when there is nothing to match with, or `redact` is asked of `test` alone.
 * @example
 * contentFilter({ id: 'no-card-numbers', stages: ['tool-output', 'model-input'], patterns: [/\b\d{4}(?:[ -]?\d{4}){3}\b/], action: 'redact' })
 */
export function contentFilter(options: ContentFilterOptions): PolicyRule {
  const { id, stages, patterns = [], test, redactor, action, tools, scopes } = options;
  if (patterns.length === 0 && !test && !redactor)
    throw new AgencyError('invalid_argument', `contentFilter "${id}": give "patterns", "test" or "redactor"`);
  if (action === 'redact' && patterns.length === 0 && !redactor)
    throw new AgencyError(
      'invalid_argument',
      `contentFilter "${id}": "redact" needs "patterns" or a "redactor"; a "test" function can only block`,
    );
  const replacement = options.replacement ?? `[REDACTED:${id}]`;
  const regexes = patterns.map((pattern) => new RegExp(pattern.source, pattern.flags.replace('y', '')));
  const global = regexes.map(
    (regex) => new RegExp(regex.source, regex.flags.includes('g') ? regex.flags : `${regex.flags}g`),
  );
  const toolMatch = tools === undefined ? () => true : nameMatcher(tools);
  const scopeMatch = scopes === undefined ? () => true : nameMatcher(scopes);

  const matches = (text: string) =>
    regexes.some((regex) => {
      regex.lastIndex = 0;
      return regex.test(text);
    }) ||
    (test?.(text) ?? false) ||
    (redactor !== undefined && redactor.redactText(text) !== text);
  const redact = (text: string) => {
    let out = redactor ? redactor.redactText(text) : text;
    for (const regex of global) out = out.replace(regex, replacement);
    return out;
  };

  return {
    id,
    check(request) {
      const stage = stageOf(request);
      if (!stage || !stages.includes(stage)) return undefined;
      if ((request.kind === 'tool-call' || request.kind === 'tool-output') && !toolMatch(request.tool.name))
        return undefined;
      if (request.kind === 'memory-write' && !scopeMatch(request.scope)) return undefined;
      let found = false;
      mapPayloadText(request, (text) => {
        found ||= matches(text);
        return text;
      });
      if (!found) return undefined;
      const where = describeStage(request);
      if (action === 'block') return { effect: 'deny', reason: `${where} matches content filter "${id}"` };
      return { effect: 'modify', patch: mapPayloadText(request, redact), reason: `${where} redacted by "${id}"` };
    },
  };
}

/**
 * A content filter on memory writes: `block` drops the write, `redact` stores it with the matches replaced.
 *
 * @example
 * memoryWriteFilter({ id: 'no-secrets-in-memory', redactor: defaultRedactor, action: 'redact', scopes: ['org:*', 'team:*'] })
 */
export function memoryWriteFilter(options: Omit<ContentFilterOptions, 'stages' | 'tools'>): PolicyRule {
  return contentFilter({ ...options, stages: ['memory-write'] });
}

function stageOf(request: PolicyRequest): ContentStage | undefined {
  switch (request.kind) {
    case 'tool-call':
      return 'tool-input';
    case 'tool-output':
      return 'tool-output';
    case 'model-input':
      return 'model-input';
    case 'memory-write':
      return 'memory-write';
    case 'plan':
      return undefined;
  }
}

function describeStage(request: PolicyRequest): string {
  switch (request.kind) {
    case 'tool-call':
      return `input of tool "${request.tool.name}"`;
    case 'tool-output':
      return `output of tool "${request.tool.name}"`;
    case 'model-input':
      return 'model input';
    case 'memory-write':
      return `memory write to "${request.scope}"`;
    case 'plan':
      return 'plan';
  }
}
