// How the GitHub director tells GitHub's failures apart: a rate limit (wait until the reset time GitHub sent), a
// failure worth retrying (5xx, the network, an answer that is not what GitHub documents) and a refusal that retrying
// will not change (401, 403, 404, 422). Messages name the request and GitHub's own message, never the token.
import { AgencyError, errorMessage } from '../../../core/errors.ts';

/** What an Octokit failure carries that matters here. */
type HttpFailure = {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | number | undefined>; data?: unknown };
};

/**
 * Turns a failed GitHub request into an AgencyError: `github_rate_limit` (details.retryAt, ms since the epoch, from
 * `x-ratelimit-reset` or `retry-after`), `github_retryable` or `github_fatal`, each with details.status and
 * details.request (`METHOD path`).
 */
export function classifyGitHubError(error: unknown, request: string, now: number): AgencyError {
  if (AgencyError.isInstance(error)) return error;
  const failure = (typeof error === 'object' && error !== null ? error : {}) as HttpFailure;
  const status = typeof failure.status === 'number' ? failure.status : 0;
  const headers = failure.response?.headers ?? {};
  const said = githubMessage(failure);
  const details = { status, request };
  const retryAt = rateLimitReset(status, headers, now);
  if (retryAt !== undefined)
    return new AgencyError(
      'github_rate_limit',
      `GitHub ${request}: rate limited (${status} ${said}); retrying after ${new Date(retryAt).toISOString()}`,
      { details: { ...details, retryAt }, cause: error },
    );
  if (status === 0 || status >= 500)
    return new AgencyError(
      'github_retryable',
      `GitHub ${request}: ${status === 0 ? `no answer (${errorMessage(error)})` : `${status} ${said}`}; retrying`,
      { details, cause: error },
    );
  return new AgencyError('github_fatal', `GitHub ${request}: ${status} ${said}${fix(status)}`, {
    details,
    cause: error,
  });
}

function rateLimitReset(
  status: number,
  headers: Record<string, string | number | undefined>,
  now: number,
): number | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const retryAfter = Number(headers['retry-after']);
  if (Number.isFinite(retryAfter) && headers['retry-after'] !== undefined) return now + retryAfter * 1000;
  if (String(headers['x-ratelimit-remaining']) !== '0') return status === 429 ? now + 60_000 : undefined;
  const reset = Number(headers['x-ratelimit-reset']);
  return Number.isFinite(reset) && reset > 0 ? Math.max(now, reset * 1000) : now + 60_000;
}

function githubMessage(failure: HttpFailure): string {
  const data = failure.response?.data;
  if (typeof data === 'object' && data !== null) {
    const { message, errors } = data as { message?: unknown; errors?: unknown };
    const listed = Array.isArray(errors)
      ? errors.map((e) => (typeof e === 'object' && e !== null ? JSON.stringify(e) : String(e))).join('; ')
      : '';
    if (typeof message === 'string') return listed ? `${message} (${listed})` : message;
  }
  return (failure.message ?? 'failed').split('\n')[0]!.slice(0, 300);
}

function fix(status: number): string {
  if (status === 401) return ' (check AGENCY_ROOT/credentials/github-token)';
  if (status === 403) return ' (the token lacks a permission this needs)';
  if (status === 404) return ' (check repo and api_url in the config, and the token can see the repository)';
  return '';
}

/** An answer whose body is not the shape GitHub documents (cut short, another object): worth a retry. */
export function malformedAnswer(request: string, why: string): AgencyError {
  return new AgencyError('github_retryable', `GitHub ${request}: the answer is not what GitHub documents (${why})`, {
    details: { request, status: 200 },
  });
}
