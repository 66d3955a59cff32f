// A stateful fake of the GitHub REST API, on a real HTTP server on a free port: the operations the GitHub director
// uses (test/fixtures/github-openapi-subset.json), GitHub's rate-limit headers and error bodies. Every request body it
// receives and every answer it sends is checked against GitHub's published schemas: a request GitHub would refuse
// gets GitHub's 422, and an answer of the fake's own that drifts from the schemas is recorded in `drift` (tests assert
// it stays empty) and sent as a 500. A test API injects failures, holds a request to kill its caller mid-flight, and
// acts as a human: opens issues, comments, reacts, reviews.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CompiledOperation, loadOpenApiSubset } from './openapi-subset.ts';
import { DOCS, notFound, ROUTES, type RouteAnswer } from './github-routes.ts';
import { GitHubStore, type ReactionRecord } from './github-store.ts';

/** A failure to answer with instead of the real answer. */
export type FaultKind =
  /** 500 with GitHub's error body. */
  | 'server_error'
  /** 502 with an HTML body, as GitHub's front end sends when it is down. */
  | 'bad_gateway'
  /** 403, `x-ratelimit-remaining: 0` and `x-ratelimit-reset` `resetInSeconds` from now. */
  | 'rate_limit'
  /** 403 with `retry-after`: GitHub's secondary rate limit. */
  | 'secondary_rate_limit'
  /** 422 `Validation Failed` with `errors`. */
  | 'validation'
  /** 401 `Bad credentials`. */
  | 'unauthorized'
  /** 200 with a JSON content type and a body cut short. */
  | 'malformed'
  /** 200 with valid JSON of another shape. */
  | 'wrong_shape';

/** Which requests a fault or a pause applies to: an operationId, and optionally a request path. */
export type Match = { operation: string; path?: string | RegExp };

/** A failure for the next `times` matching requests (default 1); a rate limit resets in `resetInSeconds` (1). */
export type Fault = Match & { kind: FaultKind; times?: number; resetInSeconds?: number };

/** One request the fake received. */
export type RequestLog = { method: string; path: string; operation: string | undefined; status: number };

/** A held request: `arrived` resolves when it comes; `release` lets it go on. */
export type Pause = { arrived: Promise<void>; release(): void };

export type GitHubFakeOptions = {
  owner?: string;
  repo?: string;
  /** The token the director's user authenticates with. */
  token: string;
  /** The director's user. @default 'agency-bot' */
  login?: string;
  /** The bare repository the director pushes to: pull requests need their head branch there. */
  remote?: string;
  now?: () => number;
};

/** A human on the fake GitHub. */
export type Human = {
  openIssue(title: string, body?: string, labels?: string[]): number;
  comment(issue: number, body: string): number;
  react(on: { issue: number } | { comment: number }, content: string): void;
  review(pull: number, event: 'APPROVE' | 'COMMENT' | 'REQUEST_CHANGES', body?: string): void;
};

export type GitHubFake = {
  /** The API's origin, the `api_url` of the director's config. */
  url: string;
  store: GitHubStore;
  login: string;
  inject(fault: Fault): void;
  /** Holds the next matching request, `before` the fake acts on it or `after` (the side effect done, no answer yet). */
  pause(match: Match, when: 'before' | 'after'): Pause;
  human(login: string): Human;
  requests: RequestLog[];
  /** Every answer body sent, as text (for canary scans). */
  answers: string[];
  /** Schema problems of the fake's own answers: a fake that drifted from GitHub. */
  drift: string[];
  /** Requests of `operation` so far (optionally only those answered with `status`). */
  count(operation: string, status?: number): number;
  close(): Promise<void>;
};

let operations: Map<string, CompiledOperation> | undefined;

/** Starts the fake on a free port of 127.0.0.1. */
export async function startGitHubFake({
  owner = 'octo',
  repo = 'widgets',
  token,
  login = 'agency-bot',
  remote,
  now = Date.now,
}: GitHubFakeOptions): Promise<GitHubFake> {
  operations ??= loadOpenApiSubset();
  const compiled = operations;
  const faults: Fault[] = [];
  const pauses: Array<Match & { when: 'before' | 'after'; arrive(): void; gate: Promise<void> }> = [];
  const requests: RequestLog[] = [];
  const answers: string[] = [];
  const drift: string[] = [];
  let remaining = 5000;
  const site = { api: '', html: 'https://github.example', owner, repo };
  const store = new GitHubStore(site, now, remote);
  store.user(owner);
  store.user(login);

  const matches = (match: Match, operation: CompiledOperation, path: string) =>
    match.operation === operation.id &&
    (match.path === undefined || (typeof match.path === 'string' ? match.path === path : match.path.test(path)));

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      drift.push(`the fake threw: ${String(error)}`);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', site.api);
    const method = request.method ?? 'GET';
    const operation = [...compiled.values()].find((op) => op.method === method && op.pattern.test(url.pathname));
    const text = await readBody(request);
    const log: RequestLog = { method, path: url.pathname, operation: operation?.id, status: 0 };
    requests.push(log);
    const send = (answer: RouteAnswer, raw?: string) => {
      log.status = answer.status;
      remaining = Math.max(0, remaining - 1);
      const body = raw ?? JSON.stringify(answer.body);
      answers.push(body);
      response.writeHead(answer.status, {
        'content-type': raw?.startsWith('<') ? 'text/html' : 'application/json; charset=utf-8',
        'x-ratelimit-limit': '5000',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': String(Math.floor(now() / 1000) + 3600),
        'x-ratelimit-used': String(5000 - remaining),
        'x-ratelimit-resource': 'core',
        'x-github-media-type': 'github.v3; format=json',
        ...answer.headers,
      });
      response.end(body);
    };
    if (!operation) return send(notFound());
    const user = authenticate(request.headers.authorization, token, login);
    if (!user)
      return send({ status: 401, body: { message: 'Bad credentials', documentation_url: DOCS, status: '401' } });
    const fault = faults.find((f) => matches(f, operation, url.pathname));
    if (fault) {
      if (--fault.times! <= 0) faults.splice(faults.indexOf(fault), 1);
      const [answer, raw] = faultAnswer(fault, now);
      return send(answer, raw);
    }
    const pause = pauses.find((p) => matches(p, operation, url.pathname));
    if (pause) pauses.splice(pauses.indexOf(pause), 1);
    if (pause?.when === 'before') {
      pause.arrive();
      await pause.gate;
    }
    const answer = act(operation, url, text, user);
    if (pause?.when === 'after') {
      pause.arrive();
      await pause.gate;
    }
    const problems = operation.checkAnswer(answer.status, answer.body);
    if (problems.length > 0) {
      drift.push(`${operation.id} ${answer.status}: ${problems.join('; ')}`);
      return send({ status: 500, body: { message: `fake drifted: ${problems[0]}`, documentation_url: DOCS } });
    }
    send(answer);
  }

  function act(operation: CompiledOperation, url: URL, text: string, user: string): RouteAnswer {
    let body: unknown = {};
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return { status: 400, body: { message: 'Problems parsing JSON', documentation_url: DOCS, status: '400' } };
      }
    }
    const problems = operation.checkBody(body);
    if (problems.length > 0)
      return {
        status: 422,
        body: { message: `Invalid request.\n\n${problems.join('\n')}`, documentation_url: DOCS, status: '422' },
      };
    const values = operation.pattern.exec(url.pathname)!.slice(1).map(decodeURIComponent);
    const params = Object.fromEntries(operation.names.map((name, i) => [name, values[i]!]));
    // One repository: any other owner/repo is not there, as GitHub answers for a repository the token cannot see.
    if (params.owner !== undefined && (params.owner !== site.owner || params.repo !== site.repo)) return notFound();
    return ROUTES[operation.id]!(store, {
      params: { ...params, __path: url.pathname },
      query: url.searchParams,
      body: (body ?? {}) as Record<string, unknown>,
      login: user,
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const human = (who: string): Human => ({
    openIssue: (title, body, labels) =>
      store.createIssue(who, { title, body: body ?? null, labels: labels ?? [] }).number,
    comment: (issue, body) => store.addComment(who, store.issue(issue)!, body).id,
    react: (on: ReactionRecord['on'], content) => void store.addReaction(who, on, content),
    review(pull, event, body = '') {
      const answer = ROUTES['pulls/create-review']!(store, {
        params: { pull_number: String(pull) },
        query: new URLSearchParams(),
        body: { event, body },
        login: who,
      });
      if (answer.status !== 200) throw new Error(`review of #${pull} failed: ${JSON.stringify(answer.body)}`);
    },
  });

  return {
    url: site.api,
    store,
    login,
    inject: (fault) => void faults.push({ times: 1, ...fault }),
    pause(match, when) {
      let arrive!: () => void;
      let release!: () => void;
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      pauses.push({ ...match, when, arrive, gate });
      return { arrived, release };
    },
    human,
    requests,
    answers,
    drift,
    count: (operation, status) =>
      requests.filter((r) => r.operation === operation && (status === undefined || r.status === status)).length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const pause of pauses) pause.arrive();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function authenticate(header: string | undefined, token: string, login: string): string | undefined {
  const match = /^(?:token|bearer)\s+(\S+)$/i.exec(header ?? '');
  return match?.[1] === token ? login : undefined;
}

function faultAnswer(fault: Fault, now: () => number): [RouteAnswer, string?] {
  const error = (status: number, message: string, headers?: Record<string, string>): RouteAnswer => ({
    status,
    body: { message, documentation_url: DOCS, status: String(status) },
    ...(headers ? { headers } : {}),
  });
  switch (fault.kind) {
    case 'server_error':
      return [error(500, 'Server Error')];
    case 'bad_gateway':
      return [{ status: 502, body: null }, '<html><body><h1>502 Bad Gateway</h1></body></html>'];
    case 'rate_limit': {
      const reset = Math.ceil(now() / 1000) + (fault.resetInSeconds ?? 1);
      const answer = error(403, 'API rate limit exceeded for user ID 2.', {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(reset),
      });
      return [answer];
    }
    case 'secondary_rate_limit':
      return [
        error(403, 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', {
          'retry-after': String(fault.resetInSeconds ?? 1),
        }),
      ];
    case 'validation':
      return [
        {
          status: 422,
          body: {
            message: 'Validation Failed',
            errors: [{ resource: 'Issue', code: 'custom', field: 'body', message: 'body is too long' }],
            documentation_url: DOCS,
            status: '422',
          },
        },
      ];
    case 'unauthorized':
      return [error(401, 'Bad credentials')];
    case 'malformed':
      return [{ status: 200, body: null }, '{"id": 1, "node_id": "trunc'];
    case 'wrong_shape':
      return [{ status: 200, body: null }, '{"unexpected": true}'];
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
