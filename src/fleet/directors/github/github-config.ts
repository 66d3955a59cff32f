// The GitHub director's `config.yaml`: the base fields every director has, and the repository it watches, how it
// reaches GitHub and git, its prompts and its settings. Checked with zod at start-up and by `agency validate`.
import { z } from 'zod';
import { directorConfigSchema } from '../../../config/director-config.ts';
import { durationSchema } from '../../../config/duration.ts';
import { readYamlConfig } from '../../../config/yaml-file.ts';
import { unknownPlaceholders } from './prompt-template.ts';

/** The credential file (under `AGENCY_ROOT/credentials/`) holding the token the director acts with. */
export const GITHUB_TOKEN_CREDENTIAL = 'github-token';

const template = (example: string) =>
  z
    .string({ error: `must be a prompt template, e.g. "${example}"` })
    .min(1, 'must not be empty')
    .superRefine((text, context) => {
      const unknown = unknownPlaceholders(text);
      if (unknown.length > 0)
        context.addIssue({
          code: 'custom',
          message: `unknown placeholder ${unknown.join(', ')}: use {{number}}, {{title}} or {{body}}`,
        });
    });

const loginSchema = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/, 'must be a GitHub login, e.g. octocat');

const settingsSchema = z
  .object({
    /** Review turns after the work turn, each until the answer says LGTM. @default 3 */
    max_reviews: z.int().min(0).max(20).default(3),
    /** The branch of issue n is `<branch_prefix><n>`. @default 'agency/issue-' */
    branch_prefix: z
      .string()
      .regex(/^[A-Za-z0-9._/-]{1,100}$/, 'must be letters, digits, ".", "_", "/" and "-", e.g. agency/issue-')
      .refine((prefix) => !prefix.includes('..') && !prefix.startsWith('/') && !prefix.startsWith('-'), {
        message: 'must be a valid git branch prefix (no "..", no leading "/" or "-")',
      })
      .default('agency/issue-'),
    /** Wait for a 👍 on the pull request from one of `approvers` before calling an issue done. @default true */
    require_approval: z.boolean().default(true),
    /** A task whose worker was lost is dispatched again (`requeue`) or reported and left (`report`). */
    on_worker_lost: z.enum(['requeue', 'report'], { error: 'must be requeue or report' }).default('requeue'),
    /** The first wait after a failure; it doubles up to `max_backoff`. @default '5s' */
    initial_backoff: durationSchema({ min: 10, max: 3_600_000 }).default(5_000),
    /** @default '10m' */
    max_backoff: durationSchema({ min: 10, max: 86_400_000 }).default(600_000),
  })
  .strict();

/** The GitHub director's config. */
export const githubConfigSchema = directorConfigSchema({
  /** The repository watched: `owner/name`. */
  repo: z
    .string({ error: 'must be owner/name, e.g. octo/widgets' })
    .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must be owner/name, e.g. octo/widgets'),
  /** The REST API's base URL; GitHub Enterprise is `https://<host>/api/v3`. @default 'https://api.github.com' */
  api_url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL, e.g. https://api.github.com' })
    .default('https://api.github.com'),
  /** Where the repository is cloned from and pushed to. @default 'https://github.com/<repo>.git' */
  clone_url: z.string().min(1, 'must not be empty').optional(),
  /** How often the repository is read. @default '30s' */
  poll_interval: durationSchema({ min: 100, max: 86_400_000 }).default(30_000),
  /** Issues carrying this label are taken as well as those whose title starts with `[name]`. */
  label: z.string().min(1).max(50).optional(),
  /** Who issues are assigned to when taken (usually the token's own user). */
  assignee: loginSchema.optional(),
  /** The users whose 👍 on a pull request approves it. */
  approvers: z.array(loginSchema).default([]),
  prompts: z
    .object({
      work: template('You are working on issue #{{number}}: {{title}}'),
      review: template('Review your changes. Say "LGTM" if they are ready.'),
    })
    .strict(),
  settings: settingsSchema.default(settingsSchema.parse({})),
}).superRefine((config, context) => {
  if (config.type !== 'github') context.addIssue({ code: 'custom', path: ['type'], message: 'must be github' });
  if (config.settings.require_approval && config.approvers.length === 0)
    context.addIssue({
      code: 'custom',
      path: ['approvers'],
      message: 'must name at least one GitHub user whose 👍 approves, or set settings.require_approval: false',
    });
});

/** The GitHub director's config, checked. */
export type GitHubConfig = z.output<typeof githubConfigSchema>;

/**
 * Reads and checks a GitHub director's `config.yaml`.
 *
 * @throws AgencyError `invalid_config` naming the file, each bad field's line, and the fix.
 */
export async function loadGitHubConfig(file: string): Promise<GitHubConfig> {
  return readYamlConfig(
    file,
    githubConfigSchema,
    'Create it, e.g.\n  type: github\n  name: gh-main\n  repo: octo/widgets\n  approvers: [octocat]\n  prompts:\n    work: "Fix #{{number}}: {{title}}\\n{{body}}"\n    review: "Review your changes; say LGTM if ready."\n(docs/directors.md)',
  );
}

/** The URL git clones from and pushes to. */
export function cloneUrl(config: GitHubConfig): string {
  return config.clone_url ?? `https://github.com/${config.repo}.git`;
}
