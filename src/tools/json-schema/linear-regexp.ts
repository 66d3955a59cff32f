import type { Options } from 'ajv';
import { RE2JS } from 're2js';

/** ajv's `code.regExp`: called with a pattern and its flags, with a `code` name for standalone code. */
type RegExpEngine = NonNullable<NonNullable<Options['code']>['regExp']>;
// ajv caches compiled patterns by their toString(), as it would a RegExp's /source/flags: each needs its own.
type RegExpLike = ReturnType<RegExpEngine> & { toString(): string };

// ECMAScript's \s: the Unicode white space and line terminators, where RE2's \s is ASCII only.
const JS_SPACE = String.raw`\t\n\x{b}\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`;
// ECMAScript's `.` without the s flag stops at every line terminator; RE2's only at \n.
const JS_DOT = String.raw`[^\n\r\x{2028}\x{2029}]`;

/**
 * A regular expression engine for ajv (`code: { regExp: linearRegExp }`) that matches in time linear in the input,
 * whatever the pattern: RE2's automata (the pure-JavaScript `re2js`) instead of V8's backtracking. A schema's
 * `pattern` or `patternProperties` from a model cannot stall the event loop: `^(a|a)*$` on 28 `a`s and a `!` took
 * seconds with `RegExp` and takes well under a millisecond here, and 1 MB of input takes about 40 ms. Patterns are
 * ECMAScript's, translated: named groups, `\u` escapes, `\s` and `.` mean what they mean in JavaScript. Lookahead,
 * lookbehind and backreferences cannot run in linear time; a pattern that uses them throws, naming the problem,
 * so ajv reports the schema as not compiling.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    let compiled: RE2JS;
    try {
      compiled = RE2JS.compile(toRe2Syntax(pattern));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `pattern ${JSON.stringify(pattern)} cannot run on agency's linear-time regular expressions (${reason}); ` +
          'lookahead, lookbehind and backreferences are not supported',
        { cause: error },
      );
    }
    return { test: (input: string) => compiled.test(input), toString: () => `/${pattern}/${flags}` };
  },
  { code: 'linearRegExp' },
);

/**
 * {@link linearRegExp} for schemas that are not the model's to write, such as an MCP server's: a pattern it cannot
 * run is not checked here (every string passes it) instead of making the whole schema fail, and the server, whose
 * pattern it is, still checks it.
 */
export const lenientLinearRegExp: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    try {
      return linearRegExp(pattern, flags);
    } catch {
      return { test: () => true, toString: () => `/${pattern}/${flags} (not checked)` };
    }
  },
  { code: 'lenientLinearRegExp' },
);

/**
 * An ECMAScript pattern in RE2's syntax: re2js's translation (named groups, `\u` escapes, `\cX`, the empty classes
 * `[]` and `[^]`), then what RE2 reads differently: `\s`, `\S` and `.` outside a class, and `\s` inside one.
 */
export function toRe2Syntax(pattern: string): string {
  const source = RE2JS.translateRegExp(pattern);
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === '\\') {
      const next = source[i + 1] ?? '';
      i++;
      if (next === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === 'S' && !inClass) out += `[^${JS_SPACE}]`;
      else out += `\\${next}`;
    } else if (inClass) {
      if (char === ']') inClass = false;
      out += char;
    } else if (char === '[') {
      inClass = true;
      out += source.startsWith('[^', i) ? '[^' : '[';
      if (source.startsWith('[^', i)) i++;
    } else out += char === '.' ? JS_DOT : char;
  }
  return out;
}
